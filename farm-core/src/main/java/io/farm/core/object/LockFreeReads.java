package io.farm.core.object;

import io.farm.alloc.ObjectHeader;
import io.farm.core.addr.GlobalAddress;
import io.farm.core.addr.RegionId;
import io.farm.core.alloc.ClusterEpochs;
import io.farm.core.cluster.Node;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.fabric.Capability;
import io.farm.core.fabric.Completion;
import io.farm.core.fabric.DmaEmulation;
import io.farm.core.fabric.FabricException;
import io.farm.core.fabric.UnregisteredRegionException;
import io.farm.core.placement.PlacementRing;
import io.farm.core.region.Region;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Lock-free reads of objects (FaRM NSDI'14 §3.5, DESIGN §6) for code running on the workers of
 * one node: {@link #lockFreeStart}, any number of {@link #lockFreeRead}s, {@link #lockFreeEnd}.
 *
 * <p><b>A read</b> copies the whole stored object from its region's primary with one fabric
 * read (line-consistent, DESIGN §4.2; a region of this node takes the same path through the
 * port, or is copied at once with local memory accesses by {@link #readLocalInto}) and accepts
 * the copy iff its slot holds the expected incarnation, allocated, and
 * {@link ObjectLayout#isConsistent} holds: not exclusively locked, every line at the header's
 * line version. Otherwise it reads again after a randomized backoff, waited for on the worker
 * (the read re-queues itself as a continuation until its time has come; the worker never
 * blocks). The stage completes on the issuing worker with an {@link ObjectBuffer} that tells
 * how many fabric reads it took, or fails with:
 * <ul>
 *   <li>{@link ObjectFreedException}: the slot is free, or (with a {@link FatPointer}) at
 *       another incarnation: the object was freed;</li>
 *   <li>{@link LockFreeReadTimeoutException}: a fabric read took longer than
 *       {@link #MAX_READ_NANOS}, or no consistent copy came within {@link #RETRY_TIMEOUT_NANOS};</li>
 *   <li>the {@link FabricException} of a failed fabric read (an unreachable primary).</li>
 * </ul>
 *
 * <p><b>The read bound.</b> Line versions are the low 16 bits of the version, so a copy whose
 * lines all carry the header's line version could still mix two versions 65,535 apart. Writers
 * install at most one version of an object per {@link ObjectLayout#MIN_VERSION_INTERVAL_NANOS}
 * (1 µs), so two versions with equal line versions are at least 65,535 µs apart. A fabric read
 * is timed from before it is issued to its completion on the worker, which contains the copy;
 * a read that took longer than half of that, {@value #MAX_READ_NANOS} ns, is aborted. The
 * factor 2 is the margin for the clocks of reader and writer (FaRM's weak bound on clock
 * drift; on one host they are the same clock).
 *
 * <p><b>Bad input</b> is refused at once, before anything is read: an address in no data region
 * of the cluster (region 0, a system region, a ring the cluster lacks) or in a region its
 * primary does not hold, one not on a 64-byte boundary, a size out of range or one whose stored
 * object would end past the region ({@link IllegalArgumentException}); a closed operation, or a
 * call off the operation's worker thread ({@link IllegalStateException}).
 */
public final class LockFreeReads {
    /** The longest a fabric read of a lock-free read may take; see the class comment. */
    public static final long MAX_READ_NANOS = 65_535 * ObjectLayout.MIN_VERSION_INTERVAL_NANOS / 2;
    /** The longest a lock-free read may retry before it is aborted. */
    public static final long RETRY_TIMEOUT_NANOS = 1_000_000_000L;
    /** The first backoff after an inconsistent copy is drawn from 0 .. this; each retry doubles it. */
    public static final long MIN_BACKOFF_NANOS = 500;
    /** The largest backoff range. */
    public static final long MAX_BACKOFF_NANOS = 64_000;

    /** Copies {@link #readLocalInto} takes before it leaves an object to the backing-off fabric path. */
    public static final int LOCAL_ATTEMPTS = 4;

    private static final long NO_INCARNATION = -1;
    private static final int COUNTER_STRIDE = 8;

    private final Node node;
    private final ClusterEpochs epochs;
    private final PlacementRing placement;
    /** Worker w's random source for backoffs; used by worker w only. */
    private final SplittableRandom[] randoms;
    /** Worker w's local copies at index w * 8 (a cache line per worker); written by worker w, summed by anyone. */
    private final AtomicLongArray localReads;

    /**
     * Lock-free reads for the workers of {@code node}, holding epochs with {@code epochs} (the
     * node's).
     *
     * @throws IllegalArgumentException if {@code epochs} are another node's
     */
    public LockFreeReads(Node node, ClusterEpochs epochs) {
        if (epochs.node() != node) {
            throw new IllegalArgumentException("the epochs of node " + epochs.node().id() + " cannot hold the workers of node "
                + node.id());
        }
        this.node = node;
        this.epochs = epochs;
        this.placement = node.config().placement();
        int threads = node.config().threads();
        this.randoms = new SplittableRandom[threads];
        this.localReads = new AtomicLongArray(threads * COUNTER_STRIDE);
        SplittableRandom seeds = new SplittableRandom();
        for (int w = 0; w < threads; w++) {
            randoms[w] = seeds.split();
        }
    }

    /**
     * Opens a lock-free operation on {@code worker}: from now until {@link #lockFreeEnd} the
     * worker holds its epoch.
     *
     * @throws IllegalStateException if called off {@code worker}'s thread or with another node's worker
     */
    public LockFreeOperation lockFreeStart(NodeWorker worker) {
        requireOwnWorker(worker, "lockFreeStart");
        epochs.hold(worker);
        return new LockFreeOperation(worker);
    }

    /**
     * Closes {@code operation}: its worker releases its epoch. The buffers its reads returned stay
     * readable, but nothing they hold may be relied on afterwards without another read.
     *
     * @throws IllegalStateException if it is closed already, has reads outstanding, or is called
     *                               off its worker's thread
     */
    public void lockFreeEnd(LockFreeOperation operation) {
        requireOpen(operation, "lockFreeEnd");
        if (operation.outstanding() > 0) {
            throw new IllegalStateException("lockFreeEnd with " + operation.outstanding()
                + " reads outstanding: end an operation once its reads completed");
        }
        operation.close();
        epochs.release(operation.worker());
    }

    /**
     * Reads the object of {@code size} application bytes at {@code address}, which must be
     * allocated, whatever its incarnation. See the class comment.
     *
     * @throws IllegalArgumentException on bad input (see the class comment); nothing is read
     * @throws IllegalStateException    if {@code operation} is closed or this is called off its worker's thread
     */
    public CompletionStage<ObjectBuffer> lockFreeRead(LockFreeOperation operation, long address, int size) {
        return read(operation, address, size, NO_INCARNATION);
    }

    /**
     * Reads the object {@code pointer} points to, which must be allocated at the pointer's
     * incarnation. See the class comment.
     *
     * @throws IllegalArgumentException on bad input (see the class comment); nothing is read
     * @throws IllegalStateException    if {@code operation} is closed or this is called off its worker's thread
     */
    public CompletionStage<ObjectBuffer> lockFreeRead(LockFreeOperation operation, FatPointer pointer) {
        return read(operation, pointer.address(), pointer.size(), pointer.incarnation());
    }

    /**
     * Reads {@code count} consecutive objects of an array (FaRM NSDI'14 §3.2: "efficient reads of
     * consecutive elements in an array with a single RDMA"): elements of {@code elementSize}
     * application bytes, each a whole object (its own header and line versions), stored back to
     * back from {@code arrayAddress}; elements {@code first .. first + count - 1} are copied with
     * one fabric read per attempt, and the copy is accepted when every element is consistent and
     * allocated (any incarnation). The list holds one buffer per element, in order.
     *
     * @throws IllegalArgumentException on bad input (see the class comment; also a negative
     *                                  {@code first} or a {@code count} below 1); nothing is read
     * @throws IllegalStateException    if {@code operation} is closed or this is called off its worker's thread
     */
    public CompletionStage<List<ObjectBuffer>> lockFreeReadArray(LockFreeOperation operation, long arrayAddress,
                                                                 int elementSize, int first, int count) {
        if (first < 0 || count < 1) {
            throw new IllegalArgumentException("lock-free read of elements " + first + ".." + (first + count - 1)
                + " of the array at " + GlobalAddress.toString(arrayAddress) + ": accepted first >= 0 and count >= 1");
        }
        long stride = ObjectLayout.storedSize(checkSize(arrayAddress, elementSize));
        if ((long) first * stride > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("element " + first + " of the array at " + GlobalAddress.toString(arrayAddress)
                + " lies past any region");
        }
        long address = arrayAddress + first * stride;
        Read read = prepare(operation, address, elementSize, count, NO_INCARNATION, null);
        read.arrayResult = new CompletableFuture<>();
        start(operation, read);
        return read.arrayResult;
    }

    /**
     * The callback of {@link #lockFreeReadInto}: exactly one of its methods runs, on the
     * operation's worker.
     */
    public interface IntoCallback {
        /** The buffer holds a consistent copy, taken with {@code reads} fabric reads. */
        void copied(int reads);

        /** The read failed, for the reasons {@link #lockFreeRead} fails. */
        void failed(Throwable failure);
    }

    /**
     * As {@link #lockFreeReadArray}, without allocating: the consistent copy of the {@code count}
     * objects (stored layout, back to back) goes into {@code buffer}, which the caller owns and
     * must not touch until {@code callback} ran; the caller converts what it needs
     * ({@link ObjectLayout#toApplication}). For hot paths that read into buffers they reuse (the
     * hashtable's lookups). A single object is {@code count} 1.
     *
     * @param buffer native memory of at least {@code ObjectLayout.storedSize(size) * count} bytes
     * @throws IllegalArgumentException on bad input, as {@link #lockFreeReadArray}, or a buffer too small
     * @throws IllegalStateException    as {@link #lockFreeReadArray}
     */
    public void lockFreeReadInto(LockFreeOperation operation, long address, int size, int count, MemorySegment buffer,
                                 IntoCallback callback) {
        if (count < 1) {
            throw new IllegalArgumentException("lock-free read of " + count + " objects: accepted 1 or more");
        }
        long needed = (long) ObjectLayout.storedSize(checkSize(address, size)) * count;
        if (buffer.byteSize() < needed || !buffer.isNative()) {
            throw new IllegalArgumentException("lock-free read into a " + (buffer.isNative() ? "" : "heap ") + "buffer of "
                + buffer.byteSize() + " bytes: it needs " + needed + " bytes of native memory");
        }
        Read read = prepare(operation, address, size, count, NO_INCARNATION, buffer);
        read.callback = callback;
        start(operation, read);
    }

    /**
     * {@link #lockFreeReadInto}, done at once with local memory accesses when the objects'
     * region has this node as its primary (FaRM NSDI'14 §3.3: "if the region is stored locally,
     * FaRM obtains the base address for the region and uses local memory accesses"): the worker
     * copies the objects line-consistently itself, with no fabric operation and no completion to
     * wait for, and checks the copy as a fabric read's. Returns the copies it took (1 or more)
     * when {@code buffer} holds a consistent copy of allocated objects; returns 0, with the
     * buffer's contents undefined, when the region is another node's, or no consistent copy of
     * allocated objects came within {@value #LOCAL_ATTEMPTS} copies or the time bound of a read
     * (the objects are locked, being written, or free): the caller then reads with
     * {@link #lockFreeReadInto}, which backs off, retries and reports why a read fails.
     *
     * @throws IllegalArgumentException on bad input, as {@link #lockFreeReadInto}
     * @throws IllegalStateException    as {@link #lockFreeReadInto}
     */
    public int readLocalInto(LockFreeOperation operation, long address, int size, int count, MemorySegment buffer) {
        requireOpen(operation, "readLocalInto");
        if (count < 1) {
            throw new IllegalArgumentException("lock-free read of " + count + " objects: accepted 1 or more");
        }
        int storedSize = ObjectLayout.storedSize(checkSize(address, size));
        long length = (long) storedSize * count;
        if (buffer.byteSize() < length || !buffer.isNative()) {
            throw new IllegalArgumentException("lock-free read into a " + (buffer.isNative() ? "" : "heap ") + "buffer of "
                + buffer.byteSize() + " bytes: it needs " + length + " bytes of native memory");
        }
        int regionId = GlobalAddress.regionId(address);
        if (!placement.isDataRegion(regionId)) {
            capabilityOf(operation.worker(), address); // refuses it, naming what is accepted
        }
        if (placement.primary(regionId) != node.id()) {
            return 0;
        }
        Region region = node.region(regionId);
        if (region == null) {
            return 0;
        }
        MemorySegment memory = region.memory();
        long offset = GlobalAddress.offset(address) & 0xFFFF_FFFFL;
        checkInside(address, size, count, offset, length, memory.byteSize());
        for (int copies = 1; copies <= LOCAL_ATTEMPTS; copies++) {
            long started = System.nanoTime();
            DmaEmulation.lineConsistentRead(memory, offset, buffer, 0, (int) length);
            if (System.nanoTime() - started > MAX_READ_NANOS) {
                return 0;
            }
            int counter = operation.worker().index() * COUNTER_STRIDE;
            // Only this worker writes its counter: a release store of the next value is enough.
            localReads.lazySet(counter, localReads.get(counter) + 1);
            boolean usable = true;
            for (int i = 0; i < count && usable; i++) {
                long at = (long) i * storedSize;
                usable = ObjectHeader.isAllocated(buffer.get(ValueLayout.JAVA_LONG, at + ObjectLayout.INCARNATION_OFFSET))
                    && ObjectLayout.isConsistent(buffer, at, storedSize);
            }
            if (usable) {
                return copies;
            }
            Thread.onSpinWait();
        }
        return 0;
    }

    /**
     * {@link #readLocalInto} of one object, as a buffer: a view of {@code buffer} (the caller's,
     * valid until the caller reuses it), or null when the object is left to {@link #lockFreeRead}.
     *
     * @throws IllegalArgumentException on bad input, as {@link #lockFreeReadInto}
     * @throws IllegalStateException    as {@link #lockFreeReadInto}
     */
    public ObjectBuffer readLocal(LockFreeOperation operation, long address, int size, MemorySegment buffer) {
        int copies = readLocalInto(operation, address, size, 1, buffer);
        return copies == 0 ? null : new ObjectBuffer(address, size, buffer.asSlice(0, ObjectLayout.storedSize(size)), copies);
    }

    /** Copies taken with local memory accesses ({@link #readLocalInto}) by this node's workers so far. */
    public long localReads() {
        long sum = 0;
        for (int counter = 0; counter < localReads.length(); counter += COUNTER_STRIDE) {
            sum += localReads.get(counter);
        }
        return sum;
    }

    /** The node whose workers read. */
    public Node node() {
        return node;
    }

    private CompletionStage<ObjectBuffer> read(LockFreeOperation operation, long address, int size, long incarnation) {
        Read read = prepare(operation, address, size, 1, incarnation, null);
        read.result = new CompletableFuture<>();
        start(operation, read);
        return read.result;
    }

    private static int checkSize(long address, int size) {
        if (size < 0 || size > ObjectLayout.MAX_APPLICATION_SIZE) {
            throw new IllegalArgumentException("lock-free read of " + GlobalAddress.toString(address) + ": size " + size
                + " out of range: 0.." + ObjectLayout.MAX_APPLICATION_SIZE);
        }
        return size;
    }

    private Read prepare(LockFreeOperation operation, long address, int size, int count, long incarnation,
                         MemorySegment buffer) {
        requireOpen(operation, "lockFreeRead");
        int storedSize = ObjectLayout.storedSize(checkSize(address, size));
        Capability capability = capabilityOf(operation.worker(), address);
        long offset = GlobalAddress.offset(address) & 0xFFFF_FFFFL;
        long length = (long) storedSize * count;
        checkInside(address, size, count, offset, length, capability.size());
        MemorySegment copy = buffer != null ? buffer : Arena.ofAuto().allocate(length, ObjectLayout.LINE);
        return new Read(operation, capability, address, offset, size, storedSize, count, incarnation, copy);
    }

    private static void checkInside(long address, int size, int count, long offset, long length, long regionSize) {
        if (offset % ObjectLayout.LINE != 0 || offset + length > regionSize || length > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("lock-free read of " + GlobalAddress.toString(address) + ", size " + size
                + (count > 1 ? " times " + count + " elements" : "") + ": objects start on a multiple of "
                + ObjectLayout.LINE + " bytes and end inside their region of " + regionSize
                + " bytes; this read would take bytes " + offset + ".." + (offset + length - 1));
        }
    }

    private static void start(LockFreeOperation operation, Read read) {
        operation.readStarted();
        try {
            read.issue();
        } catch (RuntimeException refused) {
            operation.readDone();
            throw refused;
        }
    }

    private Capability capabilityOf(NodeWorker worker, long address) {
        int regionId = GlobalAddress.regionId(address);
        if (!placement.isDataRegion(regionId)) {
            throw new IllegalArgumentException("lock-free read of " + GlobalAddress.toString(address)
                + ": not an object address: region " + RegionId.toString(regionId) + " is no data region of cluster "
                + node.config().name() + "; objects live in data regions, on rings 0.." + (placement.rings() - 1)
                + ", region 0 excluded");
        }
        int primary = placement.primary(regionId);
        try {
            return worker.capability(primary, regionId);
        } catch (UnregisteredRegionException missing) {
            throw new IllegalArgumentException("lock-free read of " + GlobalAddress.toString(address) + ": region "
                + RegionId.toString(regionId) + " does not exist: its primary, node " + primary + ", holds no such region",
                missing);
        }
    }

    private void requireOpen(LockFreeOperation operation, String call) {
        requireOwnWorker(operation.worker(), call);
        if (!operation.isOpen()) {
            throw new IllegalStateException(call + " on a lock-free operation that ended: start another with lockFreeStart");
        }
    }

    private void requireOwnWorker(NodeWorker worker, String call) {
        if (worker.node() != node || !worker.worker().inWorkerThread()) {
            throw new IllegalStateException(call + " must be called on the thread of a worker of node " + node.id()
                + " with that worker, not on " + Thread.currentThread().getName());
        }
    }

    /** One lock-free read of one object or of consecutive array elements: its attempts, each one fabric read. */
    private final class Read implements Completion, Runnable {
        /** The stage of a single object's read, or null. */
        CompletableFuture<ObjectBuffer> result;
        /** The stage of an array read, or null. */
        CompletableFuture<List<ObjectBuffer>> arrayResult;
        /** The callback of a read into a caller's buffer, or null. */
        IntoCallback callback;
        private final LockFreeOperation operation;
        private final Capability capability;
        private final long address;
        private final long offset;
        private final int size;
        private final int storedSize;
        private final int count;
        private final long incarnation;
        // Native, like every segment of farm's production code (docs/decisions.md, Benchmarks).
        private final MemorySegment copy;
        private final long startedAt = System.nanoTime();
        private int reads;
        private long issuedAt;
        private long retryAt;

        Read(LockFreeOperation operation, Capability capability, long address, long offset, int size, int storedSize,
             int count, long incarnation, MemorySegment copy) {
            this.operation = operation;
            this.capability = capability;
            this.address = address;
            this.offset = offset;
            this.size = size;
            this.storedSize = storedSize;
            this.count = count;
            this.incarnation = incarnation;
            this.copy = copy;
        }

        void issue() {
            reads++;
            issuedAt = System.nanoTime();
            operation.worker().port().read(capability, offset, storedSize * count, copy, 0, this);
        }

        @Override
        public void complete(FabricException failure) {
            if (failure != null) {
                fail(failure);
                return;
            }
            long now = System.nanoTime();
            if (now - issuedAt > MAX_READ_NANOS) {
                fail(new LockFreeReadTimeoutException(address, "fabric read " + reads + " took " + (now - issuedAt)
                    + " ns, longer than the " + MAX_READ_NANOS + " ns in which 16-bit line versions cannot wrap"));
                return;
            }
            boolean consistent = true;
            for (int i = 0; i < count; i++) {
                long at = (long) i * storedSize;
                long word = copy.get(ValueLayout.JAVA_LONG, at + ObjectLayout.INCARNATION_OFFSET);
                if (!ObjectHeader.isAllocated(word)
                    || incarnation != NO_INCARNATION && ObjectHeader.incarnation(word) != incarnation) {
                    // Incarnations only grow: a copy that shows a free or a later incarnation proves a free,
                    // consistent or not.
                    fail(new ObjectFreedException(address + at, incarnation, word));
                    return;
                }
                consistent &= ObjectLayout.isConsistent(copy, at, storedSize);
            }
            if (consistent) {
                operation.readDone();
                if (callback != null) {
                    callback.copied(reads);
                } else if (result != null) {
                    result.complete(new ObjectBuffer(address, size, copy, reads));
                } else {
                    List<ObjectBuffer> elements = new ArrayList<>(count);
                    for (int i = 0; i < count; i++) {
                        elements.add(new ObjectBuffer(address + (long) i * storedSize, size,
                            copy.asSlice((long) i * storedSize, storedSize), reads));
                    }
                    arrayResult.complete(elements);
                }
                return;
            }
            if (now - startedAt > RETRY_TIMEOUT_NANOS) {
                fail(new LockFreeReadTimeoutException(address, "no consistent copy in " + reads + " fabric reads over "
                    + (now - startedAt) + " ns (at most " + RETRY_TIMEOUT_NANOS + " ns): the object stays locked, or "
                    + size + " bytes is not its size and the copy takes in lines of the next object"));
                return;
            }
            long range = Math.min(MAX_BACKOFF_NANOS, MIN_BACKOFF_NANOS << Math.min(reads - 1, 16));
            retryAt = now + randoms[operation.worker().index()].nextLong(range + 1);
            waitOnWorker();
        }

        /** The backoff: runs on the worker, once per step, until the retry is due. */
        @Override
        public void run() {
            if (System.nanoTime() - retryAt < 0) {
                waitOnWorker();
                return;
            }
            try {
                issue();
            } catch (RuntimeException refused) {
                fail(refused);
            }
        }

        private void waitOnWorker() {
            try {
                operation.worker().worker().execute(this);
            } catch (RejectedExecutionException stopping) {
                fail(stopping);
            }
        }

        private void fail(Throwable failure) {
            operation.readDone();
            if (callback != null) {
                callback.failed(failure);
            } else if (result != null) {
                result.completeExceptionally(failure);
            } else {
                arrayResult.completeExceptionally(failure);
            }
        }
    }
}
