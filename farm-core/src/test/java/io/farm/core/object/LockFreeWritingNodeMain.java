package io.farm.core.object;

import io.farm.alloc.ObjectHeader;
import io.farm.core.addr.GlobalAddress;
import io.farm.core.alloc.ClusterEpochs;
import io.farm.core.alloc.NodeAllocator;
import io.farm.core.alloc.RegionAllocator;
import io.farm.core.cluster.Node;
import io.farm.core.config.ClusterConfig;
import io.farm.core.fabric.shm.ShmFabric;
import io.farm.core.rpc.Rpc;
import io.farm.core.testing.ParentWatch;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A node process for {@link ShmLockFreeReadsProcessTest}, the writer: starts node {@code id} of
 * the cluster in {@code configFile} over the shm fabric with RPCs, the region allocator, the
 * epochs and the object allocator attached, waits for its peers, allocates one object per
 * application size given (this node their primary), writes a first version of each and prints
 * {@code OBJECTS <address>:<size>:<incarnation> ...} (hexadecimal address). A writer thread then
 * commits new versions of the objects in turn, each with the commit's write sequence under the
 * {@link ObjectLayout#EXCLUSIVE} lock ({@link ObjectLayout#commitWrite}), at most one version per
 * {@link ObjectLayout#MIN_VERSION_INTERVAL_NANOS}, and {@code WRITING} is printed. The application
 * bytes of version v of an object are {@link #pattern}: a copy that mixes versions, or holds
 * bytes of a version other than its version word's, does not match its version's pattern.
 *
 * <p>A {@link #FREE} message (payload: an object's address, 8 bytes) stops the writer, which
 * prints {@code WROTE <address>=<last version> ...}, then frees that object and prints
 * {@code FREED <address>} once the free completed (or {@code FAILED <exception>}). A
 * {@link #STOP} message closes the node (deleting its files); it prints {@code CLOSED} and exits
 * 0. If the writer fails, it prints {@code FAILED} and the process exits 1; if the test JVM goes
 * away, the process halts ({@link ParentWatch}).
 *
 * <p>Arguments: {@code configFile id size...}.
 */
public final class LockFreeWritingNodeMain {
    /** Message type that stops the writer and frees the object whose address is the payload. */
    static final int FREE = 1;
    /** Message type that stops the node. */
    static final int STOP = 2;

    private static final Duration STARTUP = Duration.ofSeconds(60);
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private LockFreeWritingNodeMain() {
    }

    public static void main(String[] args) throws Exception {
        ParentWatch.exitWhenParentDies();
        ClusterConfig config = ClusterConfig.load(Path.of(args[0]));
        int id = Integer.parseInt(args[1]);
        Node node = Node.start(config, id, ShmFabric.open(config.dataDir(), id));
        Rpc rpc = Rpc.attach(node);
        RegionAllocator regions = RegionAllocator.attach(node, rpc);
        ClusterEpochs epochs = ClusterEpochs.attach(node);
        NodeAllocator allocator = NodeAllocator.attach(node, rpc, regions, epochs);
        CompletableFuture<Long> freeRequest = new CompletableFuture<>();
        CountDownLatch stop = new CountDownLatch(1);
        node.registerHandler(FREE, (worker, sender, type, payload, offset, length) ->
            freeRequest.complete(payload.get(ValueLayout.JAVA_LONG_UNALIGNED, offset)));
        node.registerHandler(STOP, (worker, sender, type, payload, offset, length) -> stop.countDown());
        node.awaitPeers(STARTUP);

        Writer writer = new Writer(node, args.length - 2);
        StringJoiner objects = new StringJoiner(" ", "OBJECTS ", "");
        for (int i = 0; i < writer.sizes.length; i++) {
            int size = Integer.parseInt(args[2 + i]);
            long address = node.submit(0, worker -> allocator.allocate(worker, ObjectLayout.storedSize(size), GlobalAddress.NULL))
                .get(STARTUP.toSeconds(), TimeUnit.SECONDS);
            writer.add(i, address, size);
            long incarnation = ObjectHeader.incarnation(ObjectHeader.incarnationWord(writer.regions[i], writer.offsets[i]));
            objects.add(Long.toHexString(address) + ":" + size + ":" + incarnation);
        }
        print(objects.toString());
        Thread writing = Thread.ofPlatform().name("writer").start(writer);
        print("WRITING");

        long freed = freeRequest.get();
        writer.stop = true;
        writing.join();
        if (writer.failure != null) {
            print("FAILED writer: " + writer.failure);
            writer.failure.printStackTrace();
            System.exit(1);
        }
        print(writer.lastVersions());
        node.submit(0, worker -> allocator.free(worker, freed)).whenComplete((done, failure) ->
            print(failure == null ? "FREED " + Long.toHexString(freed) : "FAILED free: " + failure));

        stop.await();
        node.close();
        print("CLOSED node " + id + " with " + node.workers().errorCount() + " worker errors");
        System.exit(0);
    }

    /**
     * The application bytes of version {@code version} of an object of {@code size} bytes: each
     * byte a hash of the version and its index, so that the bytes of two versions differ almost
     * everywhere and a byte of another version in a copy is found.
     */
    static void pattern(long version, MemorySegment bytes, int size) {
        for (int i = 0; i < size; i++) {
            long h = version * 0x9E37_79B9_7F4A_7C15L ^ (i + 1) * 0xBF58_476D_1CE4_E5B9L;
            bytes.set(ValueLayout.JAVA_BYTE, i, (byte) (h ^ h >>> 29 ^ h >>> 47));
        }
    }

    private static void print(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /** Commits new versions of the objects in turn until stopped; the objects' only writer. */
    private static final class Writer implements Runnable {
        final Node node;
        final long[] addresses;
        final int[] sizes;
        final MemorySegment[] regions;
        final long[] offsets;
        final long[] versions;
        /** The application bytes of the version being written (native, like a transaction's write set). */
        final MemorySegment bytes = Arena.ofAuto().allocate(ObjectLayout.MAX_APPLICATION_SIZE);
        volatile boolean stop;
        volatile Throwable failure;

        Writer(Node node, int objects) {
            this.node = node;
            this.addresses = new long[objects];
            this.sizes = new int[objects];
            this.regions = new MemorySegment[objects];
            this.offsets = new long[objects];
            this.versions = new long[objects];
        }

        /** Adds object {@code i}, this node's, and commits its first version. */
        void add(int i, long address, int size) {
            addresses[i] = address;
            sizes[i] = size;
            regions[i] = node.region(GlobalAddress.regionId(address)).memory();
            offsets[i] = GlobalAddress.offset(address) & 0xFFFF_FFFFL;
            versions[i] = ObjectLayout.version((long) LONG.getVolatile(regions[i], offsets[i] + ObjectLayout.VERSION_OFFSET));
            commitNext(i);
        }

        @Override
        public void run() {
            try {
                long lastWrite = System.nanoTime();
                while (!stop) {
                    for (int i = 0; i < addresses.length; i++) {
                        // A writer installs at most one version per MIN_VERSION_INTERVAL_NANOS.
                        while (System.nanoTime() - lastWrite < ObjectLayout.MIN_VERSION_INTERVAL_NANOS) {
                            Thread.onSpinWait();
                        }
                        lastWrite = System.nanoTime();
                        commitNext(i);
                    }
                }
            } catch (Throwable e) {
                failure = e;
            }
        }

        /**
         * Locks object {@code i} exclusively (a compare-and-set on its version word, which must be
         * unlocked: this writer is its only one) and commits its next version.
         */
        private void commitNext(int i) {
            long versionOffset = offsets[i] + ObjectLayout.VERSION_OFFSET;
            long unlocked = ObjectLayout.versionWord(versions[i], ObjectLayout.UNLOCKED);
            if (!LONG.compareAndSet(regions[i], versionOffset, unlocked, ObjectLayout.versionWord(versions[i], ObjectLayout.EXCLUSIVE))) {
                throw new IllegalStateException("object " + GlobalAddress.toString(addresses[i]) + " is not at version "
                    + versions[i] + " unlocked: its version word is "
                    + Long.toHexString((long) LONG.getVolatile(regions[i], versionOffset)));
            }
            long next = ObjectLayout.nextVersion(versions[i]);
            pattern(next, bytes, sizes[i]);
            ObjectLayout.commitWrite(regions[i], offsets[i], ObjectLayout.storedSize(sizes[i]), bytes, 0, sizes[i], next);
            versions[i] = next;
        }

        String lastVersions() {
            StringJoiner line = new StringJoiner(" ", "WROTE ", "");
            for (int i = 0; i < addresses.length; i++) {
                line.add(Long.toHexString(addresses[i]) + "=" + versions[i]);
            }
            return line.toString();
        }
    }
}
