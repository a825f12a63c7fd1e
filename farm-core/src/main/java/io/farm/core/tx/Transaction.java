package io.farm.core.tx;

import io.farm.core.addr.GlobalAddress;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.fabric.Capability;
import io.farm.core.fabric.FabricException;
import io.farm.core.object.FatPointer;
import io.farm.core.object.LockFreeOperation;
import io.farm.core.object.LockFreeReadTimeoutException;
import io.farm.core.object.ObjectBuffer;
import io.farm.core.object.ObjectFreedException;
import io.farm.core.object.ObjectLayout;
import io.farm.core.tx.history.CommittedTransaction;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.Long2ObjectHashMap;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.stream.IntStream;

/**
 * A transaction (FaRM NSDI'14 Fig. 6): reads, allocations, writes and frees of objects, buffered
 * on the coordinator (the worker that created it) and committed with the 4-phase commit of
 * SOSP'15 ({@link Transactions} describes the protocol). Strictly serializable.
 *
 * <ul>
 *   <li>{@link #txRead} reads an object with one fabric read (lock-free read rules: an
 *       exclusively locked object is retried) and remembers its version; reading it again returns
 *       the transaction's view.</li>
 *   <li>{@link #txWrite} replaces the application bytes of an object the transaction read (in its
 *       view: the buffer {@code txRead} returned shows the new bytes from then on).</li>
 *   <li>{@link #txAlloc} allocates an object (near a hint) whose zero bytes the transaction will
 *       write; {@link #txFree} frees an object the transaction read.</li>
 *   <li>{@link #txCommit} commits, or fails with a {@link TransactionAbortedException} saying
 *       why; {@link #txAbort} gives up. Either way the transaction ends: it leaves no lock and no
 *       partial write behind, and objects it allocated are freed again if it did not commit.</li>
 * </ul>
 * Every method must be called on the transaction's worker thread; every stage completes there.
 * An open transaction holds its worker's reclamation epoch, so keep transactions short.
 */
public final class Transaction {
    private enum State { OPEN, COMMITTING, COMMITTED, ABORTED }

    private final Transactions transactions;
    private final NodeWorker worker;
    private final TxCoordinator coordinator;
    private final LockFreeOperation operation;
    private final long startNanos = System.nanoTime();
    private final Long2ObjectHashMap<TxObject> objects = new Long2ObjectHashMap<>();
    private final List<TxObject> order = new ArrayList<>();
    private State state = State.OPEN;
    private TransactionAbortedException abortCause;
    private int outstanding;
    private CompletableFuture<Void> outcome;

    // Commit progress.
    private long id;
    private List<TxObject> writes;
    private List<TxObject> readOnly;
    /** Primaries of written objects (nodes sent a LOCK), and backups of their regions (sent a COMMIT-BACKUP). */
    private int[] primaries;
    private int[] backups;
    private Int2IntHashMap reservation;
    private int awaiting;
    private int backupsWritten;
    private boolean locked;
    private boolean local;
    private TransactionAbortedException failure;
    private boolean released;

    Transaction(Transactions transactions, NodeWorker worker, TxCoordinator coordinator) {
        this.transactions = transactions;
        this.worker = worker;
        this.coordinator = coordinator;
        this.operation = transactions.reads().lockFreeStart(worker);
    }

    /** The worker that coordinates this transaction. */
    public NodeWorker worker() {
        return worker;
    }

    /**
     * Reads the object of {@code size} application bytes at {@code address}. A read that finds the
     * object freed, or cannot read it consistently in time, aborts the transaction and fails the
     * stage with the {@link TransactionAbortedException}.
     *
     * @throws IllegalArgumentException if the address is no object address of the cluster, the size is out of
     *                                  range, or the transaction read the object with another size
     * @throws IllegalStateException    if the transaction is not open, freed the object, or this is called off its worker
     */
    public CompletionStage<ObjectBuffer> txRead(long address, int size) {
        return read(address, size, null);
    }

    /**
     * Reads the object {@code pointer} points to, which must still be allocated at the pointer's
     * incarnation; otherwise the transaction aborts with {@link AbortReason#OBJECT_FREED}.
     *
     * @throws IllegalArgumentException as {@link #txRead(long, int)}
     * @throws IllegalStateException    as {@link #txRead(long, int)}
     */
    public CompletionStage<ObjectBuffer> txRead(FatPointer pointer) {
        return read(pointer.address(), pointer.size(), pointer);
    }

    private CompletionStage<ObjectBuffer> read(long address, int size, FatPointer pointer) {
        requireOpen("txRead");
        TxObject known = objects.get(address);
        if (known != null) {
            requireSize(known, size, "txRead");
            if ((known.flags & TxRecordDescriptor.FREED) != 0) {
                throw new IllegalStateException("txRead of " + GlobalAddress.toString(address)
                    + ": this transaction freed it");
            }
            if (pointer != null && known.buffer.objGetIncarnation() != pointer.incarnation()) {
                return CompletableFuture.failedFuture(abortNow(new TransactionAbortedException(AbortReason.OBJECT_FREED,
                    address, "the fat pointer expects incarnation " + pointer.incarnation() + ", the object read has "
                    + known.buffer.objGetIncarnation())));
            }
            return CompletableFuture.completedFuture(known.buffer);
        }
        CompletionStage<ObjectBuffer> read = pointer == null
            ? transactions.reads().lockFreeRead(operation, address, size)
            : transactions.reads().lockFreeRead(operation, pointer);
        outstanding++;
        CompletableFuture<ObjectBuffer> result = new CompletableFuture<>();
        read.whenComplete((buffer, readFailure) -> {
            outstanding--;
            if (state != State.OPEN) {
                result.completeExceptionally(ended("a read completed"));
            } else if (readFailure != null) {
                result.completeExceptionally(abortNow(abortFor(address, readFailure)));
            } else {
                result.complete(remember(buffer, 0).buffer);
            }
        });
        return result;
    }

    private TxObject remember(ObjectBuffer buffer, int flags) {
        TxObject known = objects.get(buffer.address());
        if (known != null) {
            // Two reads of one object raced; the first one to complete is the transaction's view.
            return known;
        }
        TxObject object = new TxObject(buffer.address(), buffer.size(), transactions.primaryOf(buffer.address()), buffer,
            flags);
        objects.put(buffer.address(), object);
        order.add(object);
        return object;
    }

    /**
     * Replaces the application bytes of {@code object}, which this transaction read (the buffer
     * {@link #txRead} or {@link #txAlloc} returned), with the {@code object.size()} bytes of
     * {@code value} at {@code offset}. The buffer shows them from now on.
     *
     * @throws IllegalArgumentException if the transaction did not read the object, or the value's size differs
     * @throws IllegalStateException    if the transaction is not open, freed the object, or this is called off its worker
     */
    public void txWrite(ObjectBuffer object, MemorySegment value, long offset) {
        requireOpen("txWrite");
        TxObject known = ownObject(object, "txWrite");
        if (offset < 0 || value.byteSize() - offset < known.size) {
            throw new IllegalArgumentException("txWrite of " + GlobalAddress.toString(known.address) + ": "
                + Math.max(0, value.byteSize() - offset) + " bytes after offset " + offset + " for an object of "
                + known.size + " bytes; a write replaces the whole object");
        }
        if ((known.flags & TxRecordDescriptor.FREED) != 0) {
            throw new IllegalStateException("txWrite of " + GlobalAddress.toString(known.address)
                + ": this transaction freed it");
        }
        ObjectLayout.toStored(value, offset, known.size, known.buffer.stored(), 0);
        known.flags |= TxRecordDescriptor.WRITE;
    }

    /**
     * As {@link #txWrite(ObjectBuffer, MemorySegment, long)} with the whole of {@code value}, which
     * must be exactly the object's size.
     *
     * @throws IllegalArgumentException if the transaction did not read the object, or the sizes differ
     */
    public void txWrite(ObjectBuffer object, byte[] value) {
        requireOpen("txWrite");
        TxObject known = ownObject(object, "txWrite");
        if (value.length != known.size) {
            throw new IllegalArgumentException("txWrite of " + GlobalAddress.toString(known.address) + ": " + value.length
                + " bytes for an object of " + known.size + " bytes; a write replaces the whole object");
        }
        txWrite(object, MemorySegment.ofArray(value), 0);
    }

    /**
     * Allocates an object of {@code size} application bytes near {@code hintAddress} (0 for no
     * hint; FaRM NSDI'14 §3.3 locality). The stage completes with the new object's buffer, zeros,
     * which the transaction writes at commit unless it writes other bytes first; if the
     * transaction does not commit, the object is freed again.
     *
     * @throws IllegalArgumentException if the size is out of range or the hint is no object address
     * @throws IllegalStateException    if the transaction is not open or this is called off its worker
     */
    public CompletionStage<ObjectBuffer> txAlloc(int size, long hintAddress) {
        requireOpen("txAlloc");
        if (size < 1 || size > ObjectLayout.MAX_APPLICATION_SIZE) {
            throw new IllegalArgumentException("txAlloc of " + size + " bytes: accepted 1.." + ObjectLayout.MAX_APPLICATION_SIZE);
        }
        int storedSize = ObjectLayout.storedSize(size);
        CompletionStage<Long> allocated = transactions.allocator().allocate(worker, storedSize, hintAddress);
        outstanding++;
        CompletableFuture<ObjectBuffer> result = new CompletableFuture<>();
        allocated.whenComplete((address, allocationFailure) -> {
            if (allocationFailure != null) {
                outstanding--;
                result.completeExceptionally(state == State.OPEN ? allocationFailure : ended("an allocation failed"));
                return;
            }
            MemorySegment stored = Arena.ofAuto().allocate(storedSize, ObjectLayout.LINE);
            readHeader(address, stored).whenComplete((ignored, headerFailure) -> {
                outstanding--;
                if (headerFailure != null) {
                    transactions.freeQuietly(worker, address);
                    result.completeExceptionally(state == State.OPEN
                        ? abortNow(abortFor(address, headerFailure)) : ended("an allocation completed"));
                    return;
                }
                TxObject object = remember(ObjectBuffer.of(address, size, stored),
                    TxRecordDescriptor.ALLOCATED | TxRecordDescriptor.WRITE);
                if (state != State.OPEN) {
                    // The transaction ended meanwhile: the object is freed with its other allocations.
                    transactions.freeQuietly(worker, address);
                    result.completeExceptionally(ended("an allocation completed"));
                    return;
                }
                result.complete(object.buffer);
            });
        });
        return result;
    }

    /** Copies the version and incarnation words of a new object into {@code stored}: locally, or with one fabric read. */
    private CompletionStage<Void> readHeader(long address, MemorySegment stored) {
        int primary = transactions.primaryOf(address);
        long offset = GlobalAddress.offset(address) & 0xFFFF_FFFFL;
        if (primary == worker.node().id()) {
            MemorySegment region = worker.node().region(GlobalAddress.regionId(address)).memory();
            stored.set(ValueLayout.JAVA_LONG, ObjectLayout.VERSION_OFFSET,
                ObjectLayout.versionWord(ObjectLayout.version(ObjectLocks.versionWord(region, offset)), ObjectLayout.UNLOCKED));
            stored.set(ValueLayout.JAVA_LONG, ObjectLayout.INCARNATION_OFFSET,
                region.get(ValueLayout.JAVA_LONG, offset + ObjectLayout.INCARNATION_OFFSET));
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        Capability capability = worker.capability(primary, GlobalAddress.regionId(address));
        worker.port().read(capability, offset, 2 * Long.BYTES, stored, 0, readFailure -> {
            if (readFailure != null) {
                done.completeExceptionally(readFailure);
                return;
            }
            long word = stored.get(ValueLayout.JAVA_LONG, ObjectLayout.VERSION_OFFSET);
            stored.set(ValueLayout.JAVA_LONG, ObjectLayout.VERSION_OFFSET,
                ObjectLayout.versionWord(ObjectLayout.version(word), ObjectLayout.UNLOCKED));
            done.complete(null);
        });
        return done;
    }

    /**
     * Frees {@code object}, which this transaction read or allocated, at commit.
     *
     * @throws IllegalArgumentException if the transaction did not read the object
     * @throws IllegalStateException    if the transaction is not open or this is called off its worker
     */
    public void txFree(ObjectBuffer object) {
        requireOpen("txFree");
        TxObject known = ownObject(object, "txFree");
        if (known.arrayElement) {
            throw new IllegalArgumentException("txFree of " + GlobalAddress.toString(known.address)
                + ": it is an element of an array; free the whole array with txFreeArray");
        }
        known.flags = known.flags & TxRecordDescriptor.ALLOCATED | TxRecordDescriptor.FREED;
    }

    /**
     * Allocates an array of {@code count} objects of {@code elementSize} application bytes each,
     * stored back to back in one allocation (so that {@link #txReadArray} reads consecutive
     * elements with one fabric read), on this node (FaRM NSDI'14 §3.2). The stage completes with
     * the elements' buffers, zeros, in the write set like {@link #txAlloc}'s; element 0's address
     * is the array's.
     *
     * @throws IllegalArgumentException if the array does not fit one allocation
     *                                  ({@value io.farm.alloc.SizeClasses#MAX_SIZE} bytes stored), the
     *                                  count is below 1, or the hint is no object address of this node
     * @throws IllegalStateException    if the transaction is not open or this is called off its worker
     */
    public CompletionStage<List<ObjectBuffer>> txAllocArray(int elementSize, int count, long hintAddress) {
        requireOpen("txAllocArray");
        transactions.checkArray("txAllocArray", worker, elementSize, count, hintAddress);
        int stride = ObjectLayout.storedSize(elementSize);
        outstanding++;
        CompletableFuture<List<ObjectBuffer>> result = new CompletableFuture<>();
        transactions.allocator().allocate(worker, stride * count, hintAddress).whenComplete((address, failure) -> {
            outstanding--;
            if (failure != null) {
                result.completeExceptionally(state == State.OPEN ? failure : ended("an allocation failed"));
                return;
            }
            if (state != State.OPEN) {
                transactions.freeQuietly(worker, address);
                result.completeExceptionally(ended("an allocation completed"));
                return;
            }
            result.complete(adoptElements(address, elementSize, 0, count, TxRecordDescriptor.ALLOCATED));
        });
        return result;
    }

    /**
     * Makes elements {@code from .. to - 1} of the array just allocated at {@code address} (on
     * this node) objects in this transaction's write set, zeros: formats the headers of elements
     * after the first and remembers each with {@code flags} plus {@link TxRecordDescriptor#WRITE}
     * (and {@link TxRecordDescriptor#ARRAY_ELEMENT} after the first).
     */
    List<ObjectBuffer> adoptElements(long address, int elementSize, int from, int to, int flags) {
        int stride = ObjectLayout.storedSize(elementSize);
        MemorySegment region = transactions.localRegion(address);
        long first = GlobalAddress.offset(address) & 0xFFFF_FFFFL;
        long incarnationWord = region.get(ValueLayout.JAVA_LONG, first + ObjectLayout.INCARNATION_OFFSET);
        List<ObjectBuffer> elements = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            long offset = first + (long) i * stride;
            long version = i == 0 ? ObjectLayout.version(ObjectLocks.versionWord(region, offset))
                : ObjectLocks.formatElement(region, offset, incarnationWord);
            MemorySegment stored = Arena.ofAuto().allocate(stride, ObjectLayout.LINE);
            stored.set(ValueLayout.JAVA_LONG, ObjectLayout.VERSION_OFFSET,
                ObjectLayout.versionWord(version, ObjectLayout.UNLOCKED));
            stored.set(ValueLayout.JAVA_LONG, ObjectLayout.INCARNATION_OFFSET, incarnationWord);
            TxObject element = remember(ObjectBuffer.of(address + (long) i * stride, elementSize, stored),
                flags | TxRecordDescriptor.WRITE | (i == 0 ? 0 : TxRecordDescriptor.ARRAY_ELEMENT));
            element.arrayElement = i > 0;
            elements.add(element.buffer);
        }
        return elements;
    }


    /**
     * Reads elements {@code first .. first + count - 1} of the array of {@code elementSize}-byte
     * elements at {@code arrayAddress} with one fabric read (retried as a whole until every
     * element is consistent); elements the transaction already read come from its view.
     *
     * @throws IllegalArgumentException as {@link #txRead(long, int)}, or for a bad range
     * @throws IllegalStateException    as {@link #txRead(long, int)}
     */
    public CompletionStage<List<ObjectBuffer>> txReadArray(long arrayAddress, int elementSize, int first, int count) {
        requireOpen("txReadArray");
        CompletionStage<List<ObjectBuffer>> read =
            transactions.reads().lockFreeReadArray(operation, arrayAddress, elementSize, first, count);
        outstanding++;
        CompletableFuture<List<ObjectBuffer>> result = new CompletableFuture<>();
        read.whenComplete((buffers, readFailure) -> {
            outstanding--;
            if (state != State.OPEN) {
                result.completeExceptionally(ended("a read completed"));
            } else if (readFailure != null) {
                result.completeExceptionally(abortNow(abortFor(arrayAddress, readFailure)));
            } else {
                List<ObjectBuffer> elements = new ArrayList<>(buffers.size());
                for (ObjectBuffer buffer : buffers) {
                    TxObject known = objects.get(buffer.address());
                    if (known != null && known.size != elementSize) {
                        result.completeExceptionally(new IllegalArgumentException("txReadArray: element "
                            + GlobalAddress.toString(buffer.address()) + " was read by this transaction with size "
                            + known.size + ", not " + elementSize));
                        return;
                    }
                    TxObject element = remember(buffer, 0);
                    element.arrayElement |= buffer.address() != arrayAddress;
                    elements.add(element.buffer);
                }
                result.complete(elements);
            }
        });
        return result;
    }

    /**
     * Frees, at commit, the array whose elements are {@code elements} (every element, in order,
     * as {@link #txAllocArray} or {@link #txReadArray} returned them): element 0's allocation,
     * and every element's incarnation, so fat pointers to any element fail.
     *
     * @throws IllegalArgumentException if the transaction did not read an element, or they are not one array's
     * @throws IllegalStateException    if the transaction is not open or this is called off its worker
     */
    public void txFreeArray(List<ObjectBuffer> elements) {
        requireOpen("txFreeArray");
        if (elements.isEmpty()) {
            throw new IllegalArgumentException("txFreeArray of no elements: pass every element of the array");
        }
        List<TxObject> known = new ArrayList<>(elements.size());
        long stride = ObjectLayout.storedSize(elements.get(0).size());
        for (int i = 0; i < elements.size(); i++) {
            TxObject object = ownObject(elements.get(i), "txFreeArray");
            if (object.size != elements.get(0).size() || object.address != elements.get(0).address() + i * stride) {
                throw new IllegalArgumentException("txFreeArray: element " + i + " at "
                    + GlobalAddress.toString(object.address) + " does not follow element 0 at "
                    + GlobalAddress.toString(elements.get(0).address()) + " in an array of " + elements.get(0).size()
                    + "-byte elements");
            }
            known.add(object);
        }
        for (int i = 0; i < known.size(); i++) {
            TxObject object = known.get(i);
            object.flags = object.flags & TxRecordDescriptor.ALLOCATED | TxRecordDescriptor.FREED
                | (i == 0 ? 0 : TxRecordDescriptor.ARRAY_ELEMENT);
        }
    }

    /**
     * Commits: the stage completes once the transaction committed, or fails with a
     * {@link TransactionAbortedException} (nothing written, no lock left), or, when every primary
     * became unreachable after the decision to commit, with a {@link CommitOutcomeUnknownException}.
     *
     * @throws IllegalStateException if the transaction is not open, has reads or allocations
     *                               outstanding, or this is called off its worker
     */
    public CompletionStage<Void> txCommit() {
        requireOpen("txCommit");
        if (outstanding > 0) {
            throw new IllegalStateException("txCommit with " + outstanding
                + " reads or allocations outstanding: commit once they completed");
        }
        state = State.COMMITTING;
        outcome = new CompletableFuture<>();
        writes = new ArrayList<>();
        readOnly = new ArrayList<>();
        boolean allLocal = true;
        for (TxObject object : order) {
            (object.written() ? writes : readOnly).add(object);
            allLocal &= object.primary == worker.node().id();
        }
        try {
            if (writes.isEmpty()) {
                if (readOnly.size() <= 1) {
                    // One object read: its read was consistent, which is all a read-only transaction of one object needs.
                    commitDone();
                } else {
                    validate();
                }
            } else {
                local = allLocal;
                reserve();
            }
        } catch (RuntimeException e) {
            fail(e instanceof TransactionAbortedException abort ? abort
                : new TransactionAbortedException(AbortReason.CONFIGURATION_CHANGED, 0, e.getMessage(), e));
        }
        return outcome;
    }

    /**
     * Gives up the transaction: nothing it wrote is installed, objects it allocated are freed.
     * Does nothing if it ended already (committed or aborted).
     *
     * @throws IllegalStateException if it is committing, or this is called off its worker
     */
    public void txAbort() {
        requireWorker("txAbort");
        if (state == State.COMMITTING) {
            throw new IllegalStateException("txAbort while the transaction commits: wait for txCommit's outcome");
        }
        if (state == State.OPEN) {
            end(State.ABORTED);
        }
    }

    /** Whether the transaction committed. */
    public boolean committed() {
        return state == State.COMMITTED;
    }

    // ---- commit steps ----

    private void reserve() {
        for (TxObject object : writes) {
            object.backups = transactions.backupsOf(object.address);
        }
        primaries = writes.stream().mapToInt(object -> object.primary).distinct().sorted().toArray();
        backups = writes.stream().flatMapToInt(object -> Arrays.stream(object.backups)).distinct().sorted().toArray();
        reservation = new Int2IntHashMap(0);
        int headerOnly = coordinator.span(TxRecordDescriptor.headerLength(TxCoordinator.MAX_PIGGYBACKED));
        if (!local) {
            for (int primary : primaries) {
                reservation.merge(primary, coordinator.span(recordLength(primary, TxRecordDescriptor.LOCK)) + headerOnly,
                    Integer::sum);
            }
        }
        for (int backup : backups) {
            reservation.merge(backup, coordinator.span(recordLength(backup, TxRecordDescriptor.COMMIT_BACKUP)) + headerOnly,
                Integer::sum);
        }
        coordinator.reserve(this, reservation);
    }

    /** The log space is reserved: start the protocol. */
    void reserved() {
        id = coordinator.nextId();
        try {
            if (local) {
                lockLocally();
            } else {
                sendLocks();
            }
        } catch (RuntimeException e) {
            abortAfterLock(new TransactionAbortedException(AbortReason.CONFIGURATION_CHANGED, 0, e.getMessage(), e));
        }
    }

    /** The reservation cannot be met: a record is larger than a log ring takes. */
    void tooLarge(String detail) {
        fail(new TransactionAbortedException(AbortReason.CONFIGURATION_CHANGED, 0, detail));
    }

    private void sendLocks() {
        awaiting = primaries.length;
        coordinator.awaitReplies(this);
        locked = true;
        for (int primary : primaries) {
            MemorySegment record = coordinator.staging();
            int length = putRecord(primary, TxRecordDescriptor.LOCK, record);
            worker.messenger().sendLog(primary, TxRecordDescriptor.LOCK, record, 0, length);
            transactions.stats().countSent(TxRecordDescriptor.LOCK);
        }
    }

    /** A primary's answer to this transaction's LOCK record. */
    void onLockReply(int primary, int status, long cause) {
        if (state != State.COMMITTING) {
            return;
        }
        if (status != TxRecordDescriptor.LOCKED && failure == null) {
            failure = lockFailure(primary, status, cause);
        }
        if (--awaiting == 0) {
            coordinator.repliesDone(this);
            if (failure != null) {
                abortAfterLock(failure);
            } else {
                validate();
            }
        }
    }

    private static TransactionAbortedException lockFailure(int primary, int status, long cause) {
        return switch (status) {
                case TxRecordDescriptor.LOCK_HELD -> new TransactionAbortedException(AbortReason.LOCK_HELD, cause,
                    "locked by another transaction at node " + primary);
                case TxRecordDescriptor.VERSION_CHANGED -> new TransactionAbortedException(AbortReason.CONFLICT, cause,
                    "node " + primary + " has a newer version than the one read");
                case TxRecordDescriptor.OBJECT_FREED -> new TransactionAbortedException(AbortReason.OBJECT_FREED, cause,
                    "freed since it was read (node " + primary + ")");
                case TxRecordDescriptor.WRONG_PRIMARY -> new TransactionAbortedException(AbortReason.CONFIGURATION_CHANGED,
                    cause, "node " + primary + " is not its primary in its configuration");
                default -> new TransactionAbortedException(AbortReason.CONFIGURATION_CHANGED, cause,
                    "node " + primary + " refused the LOCK record as malformed (status " + status + ")");
            };
    }

    /** No LOCK reply in time. */
    void lockTimedOut() {
        abortAfterLock(new TransactionAbortedException(AbortReason.TIMEOUT, 0, awaiting + " of " + primaries.length
            + " primaries did not answer the LOCK record within " + TxCoordinator.REPLY_TIMEOUT_NANOS / 1_000_000 + " ms"));
    }

    private void lockLocally() {
        MemorySegment[] regions = new MemorySegment[writes.size()];
        for (int i = 0; i < writes.size(); i++) {
            TxObject object = writes.get(i);
            MemorySegment region = transactions.localRegion(object.address);
            int status = ObjectLocks.lock(region, offsetOf(object), object.readVersion, object.readIncarnationWord,
                ObjectLayout.LOCKED_FOR_COMMIT);
            if (status != TxRecordDescriptor.LOCKED) {
                for (int j = 0; j < i; j++) {
                    ObjectLocks.unlock(regions[j], offsetOf(writes.get(j)), writes.get(j).readVersion);
                }
                abortAfterLock(lockFailure(worker.node().id(), status, object.address));
                return;
            }
            regions[i] = region;
        }
        locked = true;
        validate();
    }

    private void validate() {
        List<TxObject> remote = new ArrayList<>();
        for (TxObject object : readOnly) {
            if (object.primary == worker.node().id()) {
                MemorySegment region = transactions.localRegion(object.address);
                long offset = offsetOf(object);
                if (!unchanged(ObjectLocks.versionWord(region, offset),
                    region.get(ValueLayout.JAVA_LONG, offset + ObjectLayout.INCARNATION_OFFSET), object)) {
                    validationFailed(object);
                    return;
                }
            } else {
                remote.add(object);
            }
        }
        if (remote.isEmpty()) {
            validated();
            return;
        }
        MemorySegment headers = Arena.ofAuto().allocate(2L * Long.BYTES * remote.size(), Long.BYTES);
        awaiting = remote.size();
        for (int i = 0; i < remote.size(); i++) {
            TxObject object = remote.get(i);
            long at = 2L * Long.BYTES * i;
            Capability capability = worker.capability(object.primary, GlobalAddress.regionId(object.address));
            transactions.stats().countValidationRead();
            worker.port().read(capability, offsetOf(object), 2 * Long.BYTES, headers, at, readFailure -> {
                if (readFailure != null && failure == null) {
                    failure = abortFor(object.address, readFailure);
                } else if (failure == null && !unchanged(headers.get(ValueLayout.JAVA_LONG, at),
                    headers.get(ValueLayout.JAVA_LONG, at + Long.BYTES), object)) {
                    failure = new TransactionAbortedException(AbortReason.VALIDATION_FAILED, object.address,
                        "changed or locked since it was read");
                }
                if (--awaiting == 0) {
                    if (failure != null) {
                        abortAfterLock(failure);
                    } else {
                        validated();
                    }
                }
            });
        }
    }

    private static boolean unchanged(long versionWord, long incarnationWord, TxObject object) {
        return versionWord == ObjectLayout.versionWord(object.readVersion, ObjectLayout.UNLOCKED)
            && incarnationWord == object.readIncarnationWord;
    }

    private void validationFailed(TxObject object) {
        abortAfterLock(new TransactionAbortedException(AbortReason.VALIDATION_FAILED, object.address,
            "changed or locked since it was read"));
    }

    private void validated() {
        if (writes.isEmpty()) {
            commitDone();
        } else if (backups.length == 0) {
            commitPrimaries();
        } else {
            commitBackups();
        }
    }

    private void commitBackups() {
        awaiting = backups.length;
        for (int backup : backups) {
            MemorySegment record = coordinator.staging();
            int length = putRecord(backup, TxRecordDescriptor.COMMIT_BACKUP, record);
            backupsWritten++;
            transactions.stats().countSent(TxRecordDescriptor.COMMIT_BACKUP);
            worker.messenger().sendLog(backup, TxRecordDescriptor.COMMIT_BACKUP, record, 0, length, writeFailure -> {
                if (writeFailure != null && failure == null) {
                    failure = new TransactionAbortedException(AbortReason.CONFIGURATION_CHANGED, 0,
                        "the COMMIT-BACKUP record did not reach node " + backup, writeFailure);
                }
                if (--awaiting == 0) {
                    if (failure != null) {
                        abortAfterLock(failure);
                    } else {
                        commitPrimaries();
                    }
                }
            });
        }
    }

    private void commitPrimaries() {
        if (local) {
            installLocally();
            commitDone();
            coordinator.truncateLater(id, backups);
            coordinator.release(reservation);
            return;
        }
        awaiting = primaries.length;
        for (int primary : primaries) {
            MemorySegment record = coordinator.staging();
            int truncations = coordinator.putTruncations(primary, record, 0);
            TxRecordDescriptor.putHeader(record, 0, id, truncations, 0);
            transactions.stats().countSent(TxRecordDescriptor.COMMIT_PRIMARY);
            worker.messenger().sendLog(primary, TxRecordDescriptor.COMMIT_PRIMARY, record, 0,
                TxRecordDescriptor.headerLength(truncations), writeFailure -> {
                    if (writeFailure == null && state == State.COMMITTING) {
                        // Reported at the first completion: the record is in a primary's log (SOSP'15).
                        commitDone();
                    }
                    if (--awaiting == 0) {
                        if (state == State.COMMITTING) {
                            state = State.ABORTED;
                            transactions.stats().countOutcomeUnknown();
                            release();
                            outcome.completeExceptionally(new CommitOutcomeUnknownException(id,
                                "no primary acknowledged its COMMIT-PRIMARY record; recovery decides", writeFailure));
                        }
                        int[] truncated = union(primaries, backups);
                        coordinator.truncateLater(id, truncated);
                        coordinator.release(reservation);
                    }
                });
        }
    }

    private void installLocally() {
        // Every object exclusive before any is written: a reader that sees one object's new
        // version (say, a bucket pointing to a new value object) must not read another's old
        // bytes (the new object's former life) in the commit-mode lock, which lets readers in.
        for (TxObject object : writes) {
            ObjectLocks.makeExclusive(transactions.localRegion(object.address), offsetOf(object), object.readVersion);
        }
        for (TxObject object : writes) {
            MemorySegment region = transactions.localRegion(object.address);
            long offset = offsetOf(object);
            transactions.pacing().awaitTurn(object.address);
            if ((object.flags & TxRecordDescriptor.FREED) != 0) {
                coordinator.participant().installFree(region, object.address, object.readVersion,
                    object.newIncarnationWord(), object.flags);
            } else {
                MemorySegment value = coordinator.scratch(object.size);
                ObjectLayout.toApplication(object.buffer.stored(), 0, value, 0, object.size);
                ObjectLocks.install(region, offset, ObjectLayout.storedSize(object.size), object.readVersion,
                    object.newIncarnationWord(), value, 0, object.size);
            }
        }
    }

    /**
     * Aborts after locks may have been taken: unlocks (locally, or with ABORT records to every
     * primary sent a LOCK and every backup sent a COMMIT-BACKUP), then fails.
     */
    private void abortAfterLock(TransactionAbortedException cause) {
        coordinator.repliesDone(this);
        if (local) {
            if (locked) {
                for (TxObject object : writes) {
                    ObjectLocks.unlock(transactions.localRegion(object.address), offsetOf(object), object.readVersion);
                }
            }
        } else if (locked) {
            for (int primary : primaries) {
                sendAbort(primary);
            }
        }
        for (int i = 0; i < backupsWritten; i++) {
            // A backup that is also a primary drops every record of the transaction with the primary's ABORT.
            if (local || !contains(primaries, backups[i])) {
                sendAbort(backups[i]);
            }
        }
        if (reservation != null) {
            coordinator.release(reservation);
        }
        fail(cause);
    }

    private void sendAbort(int node) {
        MemorySegment record = coordinator.staging();
        int truncations = coordinator.putTruncations(node, record, 0);
        TxRecordDescriptor.putHeader(record, 0, id, truncations, 0);
        transactions.stats().countSent(TxRecordDescriptor.ABORT);
        worker.messenger().sendLog(node, TxRecordDescriptor.ABORT, record, 0, TxRecordDescriptor.headerLength(truncations));
    }

    private void commitDone() {
        state = State.COMMITTED;
        transactions.stats().countCommit();
        transactions.record(this::history);
        release();
        outcome.complete(null);
    }

    private CommittedTransaction history() {
        CommittedTransaction.Builder builder = CommittedTransaction.builder(
            id != 0 ? id : coordinator.nextId(), startNanos);
        for (TxObject object : order) {
            if (object.written()) {
                builder.write(object.address, object.readVersion, ObjectLayout.nextVersion(object.readVersion));
            } else {
                builder.read(object.address, object.readVersion);
            }
        }
        return builder.commit(System.nanoTime());
    }

    /** Ends a committing transaction as aborted by {@code cause}. */
    private void fail(TransactionAbortedException cause) {
        if (state != State.COMMITTING) {
            return;
        }
        abortCause = cause;
        end(State.ABORTED);
        transactions.stats().countAbort(cause.reason());
        outcome.completeExceptionally(cause);
    }

    /** Aborts an open transaction because of {@code cause} (a failed read or allocation); returns it. */
    private TransactionAbortedException abortNow(TransactionAbortedException cause) {
        if (state == State.OPEN) {
            abortCause = cause;
            end(State.ABORTED);
            transactions.stats().countAbort(cause.reason());
        }
        return cause;
    }

    /** Ends the transaction: frees its allocations if it did not commit, and releases its epoch. */
    private void end(State end) {
        state = end;
        if (end == State.ABORTED) {
            for (TxObject object : order) {
                // An array is one allocation, freed with its element 0.
                if ((object.flags & (TxRecordDescriptor.ALLOCATED | TxRecordDescriptor.ARRAY_ELEMENT))
                    == TxRecordDescriptor.ALLOCATED) {
                    transactions.freeQuietly(worker, object.address);
                }
            }
        }
        release();
    }

    private void release() {
        if (!released && outstanding == 0) {
            released = true;
            transactions.reads().lockFreeEnd(operation);
        } else if (!released) {
            // Reads still outstanding: end the operation once they complete.
            worker.worker().execute(this::release);
        }
    }

    // ---- helpers ----

    /**
     * Whether the {@code type} record (LOCK or COMMIT-BACKUP) to {@code node} carries
     * {@code object}'s entry: a LOCK goes to the object's primary, a COMMIT-BACKUP to its backups.
     */
    private static boolean carries(TxObject object, int node, int type) {
        return type == TxRecordDescriptor.LOCK ? object.primary == node : contains(object.backups, node);
    }

    /** The longest the {@code type} record to {@code node} may be: its entries and the most truncations. */
    private int recordLength(int node, int type) {
        int length = TxRecordDescriptor.headerLength(TxCoordinator.MAX_PIGGYBACKED);
        for (TxObject object : writes) {
            if (carries(object, node, type)) {
                length += object.entryLength();
            }
        }
        return length;
    }

    /** Writes the {@code type} record to {@code node} (pending truncations, then its entries) into {@code record}; returns its length. */
    private int putRecord(int node, int type, MemorySegment record) {
        int truncations = coordinator.putTruncations(node, record, 0);
        int entries = 0;
        long offset = TxRecordDescriptor.headerLength(truncations);
        for (TxObject object : writes) {
            if (carries(object, node, type)) {
                offset += object.putEntry(record, offset);
                entries++;
            }
        }
        TxRecordDescriptor.putHeader(record, 0, id, truncations, entries);
        return (int) offset;
    }

    private static int[] union(int[] a, int[] b) {
        return IntStream.concat(Arrays.stream(a), Arrays.stream(b))
            .distinct().sorted().toArray();
    }

    private static boolean contains(int[] nodes, int node) {
        for (int n : nodes) {
            if (n == node) {
                return true;
            }
        }
        return false;
    }

    private static long offsetOf(TxObject object) {
        return GlobalAddress.offset(object.address) & 0xFFFF_FFFFL;
    }

    private TxObject ownObject(ObjectBuffer object, String call) {
        TxObject known = objects.get(object.address());
        if (known == null || known.buffer != object) {
            throw new IllegalArgumentException(call + " of " + GlobalAddress.toString(object.address())
                + ": this transaction did not read it (pass the buffer its txRead or txAlloc returned)");
        }
        return known;
    }

    private static void requireSize(TxObject known, int size, String call) {
        if (known.size != size) {
            throw new IllegalArgumentException(call + " of " + GlobalAddress.toString(known.address) + " with size " + size
                + ": this transaction read it with size " + known.size);
        }
    }

    private void requireOpen(String call) {
        requireWorker(call);
        if (state != State.OPEN) {
            throw new IllegalStateException(call + " on a transaction that " + switch (state) {
                case COMMITTING -> "is committing";
                case COMMITTED -> "committed";
                default -> "aborted" + (abortCause == null ? " (txAbort)" : ": " + abortCause.getMessage());
            } + "; create another with txCreate");
        }
    }

    private void requireWorker(String call) {
        if (!worker.worker().inWorkerThread()) {
            throw new IllegalStateException(call + " must be called on the transaction's worker thread ("
                + worker.worker().name() + "), not on " + Thread.currentThread().getName()
                + "; use the CompletionStage continuations, which run there");
        }
    }

    /**
     * Why an operation that completed after the transaction ended fails: the abort's own
     * exception when the transaction aborted for a reason (so callers see a retryable reason),
     * else an {@link IllegalStateException} saying it ended.
     */
    private RuntimeException ended(String what) {
        if (state == State.ABORTED && abortCause != null) {
            return abortCause;
        }
        return new IllegalStateException(what + " after the transaction " + (state == State.COMMITTED ? "committed"
            : "was aborted (txAbort)"));
    }

    private static TransactionAbortedException abortFor(long address, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return switch (cause) {
            case TransactionAbortedException abort -> abort;
            case ObjectFreedException freed -> new TransactionAbortedException(AbortReason.OBJECT_FREED, address,
                freed.getMessage(), freed);
            case LockFreeReadTimeoutException timeout -> new TransactionAbortedException(AbortReason.TIMEOUT, address,
                timeout.getMessage(), timeout);
            case FabricException fabric -> new TransactionAbortedException(AbortReason.CONFIGURATION_CHANGED, address,
                fabric.getMessage(), fabric);
            default -> new TransactionAbortedException(AbortReason.CONFIGURATION_CHANGED, address,
                String.valueOf(cause.getMessage()), cause);
        };
    }

    long id() {
        return id;
    }
}
