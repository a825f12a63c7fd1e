package io.farm.core.object;

import io.farm.alloc.ObjectHeader;
import io.farm.core.addr.GlobalAddress;
import io.farm.core.alloc.ClusterEpochs;
import io.farm.core.alloc.RegionAllocator;
import io.farm.core.cluster.Node;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.config.ClusterConfig;
import io.farm.core.fabric.shm.ShmFabric;
import io.farm.core.placement.PlacementRing;
import io.farm.core.rpc.Rpc;
import io.farm.core.testing.NodeJvm;
import io.farm.core.testing.NodeJvms;
import io.farm.core.testing.ShmTempDirs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static io.farm.core.testing.Liveness.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lock-free reads across processes over the shm fabric: this JVM is node {@link #READER}, a
 * child JVM ({@link LockFreeWritingNodeMain}) node {@link #WRITER}, the primary of the objects,
 * which commits new versions of them while this node reads them (one backup per region, so each
 * node backs up the other's regions).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShmLockFreeReadsProcessTest {
    private static final int READER = 0;
    private static final int WRITER = 1;
    /** Application sizes of the objects: one line, four lines (a partial last line), seventeen lines. */
    private static final int[] SIZES = {40, 200, 1000};
    /** The object freed once the writer stopped. */
    private static final int FREED = 1;
    /** Lock-free reads of each object per attempt. */
    private static final int READS_PER_OBJECT = 4000;
    /** How long a node JVM may take to start on a loaded machine: a hang guard, not a timing. */
    private static final Duration STARTUP = Duration.ofSeconds(60);

    @TempDir(factory = ShmTempDirs.class)
    Path temp;

    @RegisterExtension
    final NodeJvms jvms = new NodeJvms();

    @Test
    void readsRacingTheCommitsOfAnotherProcessAreNeverTornAndAFreedObjectIsRefused() throws Exception {
        ClusterConfig config = ClusterConfig.builder()
            .name("lock-free")
            .memberCount(2)
            .backups(1)
            .fabric("shm")
            .threads(2)
            .regionSize(4 << 20)
            .dataDir(temp.resolve("cluster"))
            .build();
        Path configFile = temp.resolve("cluster.properties");
        config.store(configFile);
        List<String> args = new ArrayList<>(List.of(configFile.toString(), Integer.toString(WRITER)));
        for (int size : SIZES) {
            args.add(Integer.toString(size));
        }
        NodeJvm writer = jvms.start("writer node " + WRITER, LockFreeWritingNodeMain.class, args.toArray(String[]::new));

        try (Node node = Node.start(config, READER, ShmFabric.open(config.dataDir(), READER))) {
            Rpc rpc = Rpc.attach(node);
            RegionAllocator.attach(node, rpc);
            LockFreeReads reads = new LockFreeReads(node, ClusterEpochs.attach(node));
            node.awaitPeers(STARTUP);
            List<FatPointer> objects = objectsOf(writer.awaitLine("OBJECTS", STARTUP), config.placement());
            writer.awaitLine("WRITING", STARTUP);

            // Reads racing the writer: every copy is one version's, and versions only go up.
            List<Tally> tallies = readRacingTheWriter(node, reads, objects);
            if (tallies.stream().anyMatch(Tally::failed)) {
                // The machines occasionally break x86 store ordering (docs/decisions.md): confirm once.
                System.out.println("torn or stale copy in a first attempt, reading again to confirm: " + tallies);
                tallies = readRacingTheWriter(node, reads, objects);
            }
            System.out.println("lock-free reads from node " + READER + " racing the commits of node " + WRITER
                + " (another process): " + tallies);
            for (Tally tally : tallies) {
                assertEquals(0, tally.torn, tally::toString);
                assertEquals(0, tally.backwards, tally::toString);
                assertEquals(READS_PER_OBJECT, tally.checked + tally.aborted, tally::toString);
                // Not a timing: the writer commits without pause from before the first read to after the last.
                assertTrue(tally.versionChanges > 0, () -> "the writer never committed between two reads: " + tally);
            }

            // The writer stops and frees one object: the others read as their last versions, the freed one is refused.
            FatPointer freed = objects.get(FREED);
            send(node, LockFreeWritingNodeMain.FREE, freed.address());
            Map<Long, Long> lastVersions = lastVersionsOf(writer.awaitLine("WROTE", STARTUP));
            assertEquals("FREED " + Long.toHexString(freed.address()), writer.awaitLine("FREED", STARTUP));
            for (FatPointer object : objects) {
                if (object == freed) {
                    continue;
                }
                ObjectBuffer buffer = readOnce(node, reads, op -> reads.lockFreeRead(op, object));
                assertEquals(lastVersions.get(object.address()), buffer.version(), buffer::toString);
                assertArrayEquals(pattern(buffer.version(), object.size()), buffer.toByteArray(), buffer::toString);
                assertEquals(1, buffer.reads(), () -> "an object no longer written reads at once: " + buffer);
            }
            ExecutionException refused = assertThrows(ExecutionException.class,
                () -> readOnce(node, reads, op -> reads.lockFreeRead(op, freed)));
            ObjectFreedException freedException = assertInstanceOf(ObjectFreedException.class, refused.getCause());
            assertEquals(freed.incarnation(), freedException.expectedIncarnation());
            assertFalse(ObjectHeader.isAllocated(freedException.incarnationWord()), freedException::getMessage);
            assertEquals(freed.incarnation() + 1, ObjectHeader.incarnation(freedException.incarnationWord()),
                freedException::getMessage);
            ExecutionException withoutPointer = assertThrows(ExecutionException.class,
                () -> readOnce(node, reads, op -> reads.lockFreeRead(op, freed.address(), freed.size())));
            assertInstanceOf(ObjectFreedException.class, withoutPointer.getCause());

            send(node, LockFreeWritingNodeMain.STOP, 0);
            assertEquals("CLOSED node " + WRITER + " with 0 worker errors", writer.awaitLine("CLOSED", STARTUP));
            assertEquals(0, writer.awaitExit(STARTUP), writer.logTail());
            assertEquals(0, node.workers().errorCount());
        }
    }

    /**
     * Reads the objects in turn on worker 0 of {@code node}, {@value #READS_PER_OBJECT} lock-free
     * reads each, one lock-free operation per read, through their fat pointers, and checks every
     * copy; returns one tally per object. A read aborted for its duration
     * ({@link LockFreeReadTimeoutException}: the reader was descheduled) returns no copy and is
     * counted; any other failure fails the test.
     */
    private static List<Tally> readRacingTheWriter(Node node, LockFreeReads reads, List<FatPointer> objects) throws Exception {
        return await(node.submit(0, worker -> new RacingReads(reads, objects, worker).start()));
    }

    /** The reads of {@link #readRacingTheWriter}, chained on one worker: each read issues the next in a later step. */
    private static final class RacingReads {
        private final LockFreeReads reads;
        private final List<FatPointer> objects;
        private final NodeWorker worker;
        private final List<Tally> tallies = new ArrayList<>();
        private final CompletableFuture<List<Tally>> done = new CompletableFuture<>();
        private int issued;

        RacingReads(LockFreeReads reads, List<FatPointer> objects, NodeWorker worker) {
            this.reads = reads;
            this.objects = objects;
            this.worker = worker;
            for (FatPointer object : objects) {
                tallies.add(new Tally(object));
            }
        }

        CompletableFuture<List<Tally>> start() {
            readNext();
            return done;
        }

        private void readNext() {
            if (issued == READS_PER_OBJECT * objects.size()) {
                done.complete(tallies);
                return;
            }
            Tally tally = tallies.get(issued++ % objects.size());
            LockFreeOperation op = reads.lockFreeStart(worker);
            try {
                reads.lockFreeRead(op, tally.object).whenComplete((buffer, failure) -> {
                    try {
                        reads.lockFreeEnd(op);
                        if (failure instanceof LockFreeReadTimeoutException) {
                            tally.aborted++;
                        } else if (failure != null) {
                            done.completeExceptionally(failure);
                            return;
                        } else {
                            tally.check(buffer);
                        }
                        // In a later step of the worker: a read that completes at once does not recurse.
                        worker.worker().execute(this::readNext);
                    } catch (RuntimeException | AssertionError broken) {
                        done.completeExceptionally(broken);
                    }
                });
            } catch (RuntimeException refused) {
                reads.lockFreeEnd(op);
                done.completeExceptionally(refused);
            }
        }
    }

    /** What the lock-free reads of one object returned. Confined to the reading worker until returned. */
    private static final class Tally {
        final FatPointer object;
        long checked;
        long retries;
        long aborted;
        long versionChanges;
        long torn;
        long backwards;
        long lastVersion = -1;
        String firstFailure;

        Tally(FatPointer object) {
            this.object = object;
        }

        void check(ObjectBuffer buffer) {
            checked++;
            retries += buffer.retries();
            long version = buffer.version();
            if (version < lastVersion) {
                backwards++;
                fail("read " + checked + " returned version " + version + " after version " + lastVersion);
            } else if (version > lastVersion) {
                versionChanges += lastVersion < 0 ? 0 : 1;
                lastVersion = version;
            }
            byte[] expected = pattern(version, object.size());
            byte[] actual = buffer.toByteArray();
            int mismatch = Arrays.mismatch(expected, actual);
            if (mismatch >= 0) {
                torn++;
                fail("read " + checked + ", " + buffer + ": application byte " + mismatch + " is not version " + version + "'s");
            }
        }

        boolean failed() {
            return torn > 0 || backwards > 0;
        }

        private void fail(String failure) {
            if (firstFailure == null) {
                firstFailure = failure;
            }
        }

        @Override
        public String toString() {
            return object.size() + "-byte object: " + checked + " reads checked, " + retries + " retries, " + aborted
                + " aborted, " + versionChanges + " version changes, " + torn + " torn, " + backwards + " backwards"
                + (firstFailure == null ? "" : "; first: " + firstFailure);
        }
    }

    /** One lock-free operation of one read on worker 0 of {@code node}; waits for its buffer. */
    private static ObjectBuffer readOnce(Node node, LockFreeReads reads,
                                         Function<LockFreeOperation, CompletionStage<ObjectBuffer>> oneRead) throws Exception {
        return await(node.submit(0, worker -> {
            LockFreeOperation op = reads.lockFreeStart(worker);
            CompletionStage<ObjectBuffer> stage;
            try {
                stage = oneRead.apply(op);
            } catch (RuntimeException refused) {
                reads.lockFreeEnd(op);
                throw refused;
            }
            return stage.whenComplete((buffer, failure) -> reads.lockFreeEnd(op));
        }));
    }

    /** Sends the writer a control message whose payload is {@code value}, from worker 0. */
    private static void send(Node node, int type, long value) throws Exception {
        await(node.submit(0, worker -> {
            MemorySegment payload = Arena.ofAuto().allocate(Long.BYTES);
            payload.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
            worker.messenger().send(WRITER, type, payload, 0, Long.BYTES);
            return CompletableFuture.completedFuture(null);
        }));
    }

    /** The fat pointers of {@code OBJECTS <address>:<size>:<incarnation> ...}: objects of node {@link #WRITER}. */
    private static List<FatPointer> objectsOf(String line, PlacementRing placement) {
        List<FatPointer> objects = new ArrayList<>();
        for (String object : line.substring("OBJECTS ".length()).split(" ")) {
            String[] fields = object.split(":");
            objects.add(new FatPointer(Long.parseUnsignedLong(fields[0], 16), Integer.parseInt(fields[1]),
                Long.parseLong(fields[2])));
        }
        assertEquals(SIZES.length, objects.size(), line);
        for (int i = 0; i < SIZES.length; i++) {
            assertEquals(SIZES[i], objects.get(i).size(), line);
            assertEquals(WRITER, placement.primary(GlobalAddress.regionId(objects.get(i).address())), line);
        }
        return objects;
    }

    /** The last versions of {@code WROTE <address>=<version> ...}, by address. */
    private static Map<Long, Long> lastVersionsOf(String line) {
        Map<Long, Long> versions = new HashMap<>();
        for (String object : line.substring("WROTE ".length()).split(" ")) {
            String[] fields = object.split("=");
            versions.put(Long.parseUnsignedLong(fields[0], 16), Long.parseLong(fields[1]));
        }
        assertEquals(SIZES.length, versions.size(), line);
        return versions;
    }

    private static byte[] pattern(long version, int size) {
        byte[] bytes = new byte[size];
        LockFreeWritingNodeMain.pattern(version, MemorySegment.ofArray(bytes), size);
        return bytes;
    }
}
