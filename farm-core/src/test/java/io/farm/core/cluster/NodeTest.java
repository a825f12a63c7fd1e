package io.farm.core.cluster;

import io.farm.core.addr.RegionId;
import io.farm.core.config.ClusterConfig;
import io.farm.core.fabric.Capability;
import io.farm.core.fabric.Fabric;
import io.farm.core.fabric.FabricStats;
import io.farm.core.fabric.local.LocalNetwork;
import io.farm.core.fabric.shm.ShmFabric;
import io.farm.core.msg.MessagingLayout;
import io.farm.core.node.Worker;
import io.farm.core.region.Region;
import io.farm.core.region.RegionStore;
import io.farm.core.testing.ShmTempDirs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

import static io.farm.core.cluster.TestClusters.REGION_SIZE;
import static io.farm.core.cluster.TestClusters.await;
import static io.farm.core.cluster.TestClusters.config;
import static io.farm.core.cluster.TestClusters.fill;
import static io.farm.core.cluster.TestClusters.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NodeTest {
    private static final int DATA_REGION = RegionId.of(2, 5);

    @TempDir(factory = ShmTempDirs.class)
    Path temp;

    /** Reads {@code length} bytes at {@code offset} of {@code regionId} on {@code holder} one-sided from worker 0 of {@code reader}. */
    private static MemorySegment readOneSided(Node reader, int holder, int regionId, long offset, int length) throws Exception {
        MemorySegment buffer = Arena.ofAuto().allocate(length, 64);
        CompletableFuture<Worker> completedOn = reader.submit(0, worker -> {
            CompletableFuture<Worker> done = new CompletableFuture<>();
            Capability capability = worker.capability(holder, regionId);
            worker.port().read(capability, offset, length, buffer, 0, failure -> {
                if (failure != null) {
                    done.completeExceptionally(failure);
                } else {
                    done.complete(Worker.current());
                }
            });
            return done;
        });
        assertSame(reader.workers().worker(0), await(completedOn), "the read completes on the issuing worker");
        return buffer;
    }

    private static void assertPattern(MemorySegment read, int regionId, long offset) {
        for (long i = 0; i < read.byteSize(); i += Long.BYTES) {
            assertEquals(pattern(regionId, offset + i), read.get(ValueLayout.JAVA_LONG, i),
                "word at " + (offset + i) + " of " + RegionId.toString(regionId));
        }
    }

    @Test
    void aCreatedRegionIsReadOneSidedByAnotherNode() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.start(config("regions", 2, "local", temp.resolve("regions")))) {
            Node holder = cluster.node(1);
            Node reader = cluster.node(0);
            Region region = holder.createRegion(DATA_REGION, REGION_SIZE);
            fill(region.memory(), DATA_REGION, REGION_SIZE);
            assertSame(region, holder.region(DATA_REGION));
            assertNull(reader.region(DATA_REGION), "only the holder holds the region");

            Capability capability = reader.capability(1, DATA_REGION);
            assertEquals(1, capability.node());
            assertEquals(DATA_REGION, capability.regionId());
            assertEquals(REGION_SIZE, capability.size());
            FabricStats before = reader.stats();
            long[][] blocks = {{0, 64}, {4096 + 8, 1000}, {REGION_SIZE - 8192, 8192}};
            long bytes = 0;
            for (long[] block : blocks) {
                assertPattern(readOneSided(reader, 1, DATA_REGION, block[0], (int) block[1]), DATA_REGION, block[0]);
                bytes += block[1];
            }

            FabricStats issued = reader.stats().minus(before);
            assertEquals(blocks.length, issued.readOps());
            assertEquals(bytes, issued.readBytes());
            assertEquals(0, holder.workers().errorCount() + reader.workers().errorCount());
        }
    }

    @Test
    void aSecondRegionWithTheSameIdIsRefusedAndTheFirstStays() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.start(config("twice", 2, "local", temp.resolve("twice")))) {
            Node holder = cluster.node(1);
            Region first = holder.createRegion(DATA_REGION, REGION_SIZE);
            fill(first.memory(), DATA_REGION, 4096);

            IllegalStateException twice = assertThrows(IllegalStateException.class,
                () -> holder.createRegion(DATA_REGION, REGION_SIZE));
            IllegalStateException messaging = assertThrows(IllegalStateException.class,
                () -> holder.createRegion(MessagingLayout.regionId(1), REGION_SIZE));

            assertTrue(twice.getMessage().contains("node 1 holds region " + RegionId.toString(DATA_REGION) + " already"),
                twice.getMessage());
            assertTrue(messaging.getMessage().contains("holds region " + RegionId.toString(MessagingLayout.regionId(1))),
                messaging.getMessage());
            assertSame(first, holder.region(DATA_REGION));
            assertPattern(readOneSided(cluster.node(0), 1, DATA_REGION, 0, 4096), DATA_REGION, 0);
            assertTrue(await(cluster.node(0).submit(0, worker -> worker.ping(1))) > 0, "node 1 still answers pings");
        }
    }

    @Test
    void aSilentNodeIsNotAwaitedUpUntilItAnnounces() throws Exception {
        ClusterConfig config = config("silent", 2, "local", temp.resolve("silent"));
        LocalNetwork network = new LocalNetwork();
        try (Node loud = Node.start(config, 0, network.attach(0));
             Node silent = Node.startSilent(config, 1, network.attach(1))) {
            IllegalStateException notYet = assertThrows(IllegalStateException.class,
                () -> loud.awaitPeers(Duration.ofMillis(300)));
            assertTrue(notYet.getMessage().contains("member 1 did not answer a ping"), notYet.getMessage());
            CompletableFuture<Void> awaited = CompletableFuture.runAsync(
                () -> loud.awaitPeers(Duration.ofSeconds(TestClusters.LIVENESS_SECONDS)));
            silent.announce();
            awaited.get(TestClusters.LIVENESS_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
            silent.awaitPeers(Duration.ofSeconds(TestClusters.LIVENESS_SECONDS));
        }
    }

    @Test
    void closeDeletesTheNodesFilesAndClosesItsFabric() {
        Path dataDir = temp.resolve("single");
        ClusterConfig config = config("single", 1, "local", dataDir);
        Fabric fabric = new LocalNetwork().attach(0);
        Node node = Node.start(config, 0, fabric);
        node.awaitPeers(Duration.ofSeconds(TestClusters.LIVENESS_SECONDS));
        Region region = node.createRegion(DATA_REGION, REGION_SIZE);
        Path nodeDir = RegionStore.nodeDir(dataDir, 0);
        assertTrue(Files.exists(region.file()), region.file() + " exists while the node runs");
        assertTrue(Files.exists(RegionStore.fileOf(dataDir, 0, MessagingLayout.regionId(0))), "messaging region file");

        node.close();

        assertFalse(Files.exists(nodeDir), nodeDir + " is left after close");
        assertThrows(IllegalStateException.class, fabric::openPort, "the node closed its fabric");
    }

    @Test
    void startRefusesAnIdOutsideTheClusterAndClosesTheFabric() {
        Path dataDir = temp.resolve("outside");
        ClusterConfig config = config("outside", 2, "local", dataDir);
        Fabric fabric = new LocalNetwork().attach(2);

        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> Node.start(config, 2, fabric));

        assertTrue(refused.getMessage().contains("node id 2 is not a member of cluster outside")
            && refused.getMessage().contains("accepted 0..1"), refused.getMessage());
        assertThrows(IllegalStateException.class, fabric::openPort, "the refused fabric is closed");
        assertFalse(Files.exists(dataDir), "nothing is created for a refused node");
    }

    @Test
    void startRefusesTheFabricOfAnotherNodeAndClosesIt() {
        Path dataDir = temp.resolve("foreign");
        ClusterConfig config = config("foreign", 2, "local", dataDir);
        Fabric fabric = new LocalNetwork().attach(1);

        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> Node.start(config, 0, fabric));

        assertTrue(refused.getMessage().contains("the fabric belongs to node 1, not node 0"), refused.getMessage());
        assertThrows(IllegalStateException.class, fabric::openPort, "the refused fabric is closed");
        assertFalse(Files.exists(dataDir), "nothing is created for a refused node");
    }

    @Test
    void aNodeThatFailsToStartLeavesNoFiles() {
        Path dataDir = temp.resolve("failed");
        ClusterConfig config = config("failed", 1, "local", dataDir);
        Fabric fabric = new LocalNetwork().attach(0);
        fabric.close();

        IllegalStateException failed = assertThrows(IllegalStateException.class, () -> Node.start(config, 0, fabric));

        assertTrue(failed.getMessage().contains("closed"), failed.getMessage());
        assertFalse(Files.exists(RegionStore.nodeDir(dataDir, 0)), "the messaging region of a node that did not start is deleted");
    }

    @Test
    void closeIsIdempotent() {
        Path dataDir = temp.resolve("twice-closed");
        Node node = Node.start(config("twice-closed", 1, "local", dataDir), 0, new LocalNetwork().attach(0));
        node.close();

        node.close();

        assertFalse(Files.exists(RegionStore.nodeDir(dataDir, 0)));
    }

    @Test
    void awaitPeersNamesTheMemberThatNeverStarts() {
        Path dataDir = temp.resolve("alone");
        ClusterConfig config = config("alone", 2, "shm", dataDir);
        try (Node node = Node.start(config, 0, ShmFabric.open(dataDir, 0))) {
            IllegalStateException timedOut = assertThrows(IllegalStateException.class,
                () -> node.awaitPeers(Duration.ofMillis(200)));

            assertTrue(timedOut.getMessage().contains("member 1 of cluster alone did not come up within PT0.2S"),
                timedOut.getMessage());
        }
        assertFalse(Files.exists(RegionStore.nodeDir(dataDir, 0)), "the node's files are deleted after its close");
    }

    @Test
    void staleRegionFilesOfACrashedRunAreDiscardedAtStart() throws Exception {
        Path dataDir = temp.resolve("crashed");
        ClusterConfig config = config("crashed", 1, "local", dataDir);
        Path staleData = RegionStore.fileOf(dataDir, 0, DATA_REGION);
        // A messaging region full of non-zero bytes would be read as records if it were kept.
        Path staleMessaging = RegionStore.fileOf(dataDir, 0, MessagingLayout.regionId(0));
        Files.createDirectories(staleData.getParent());
        byte[] garbage = new byte[64 * 1024];
        Arrays.fill(garbage, (byte) 0x5A);
        Files.write(staleData, garbage);
        Files.write(staleMessaging, garbage);
        PrintStream stderr = System.err;
        ByteArrayOutputStream notice = new ByteArrayOutputStream();
        Node node;
        try {
            System.setErr(new PrintStream(notice, true, StandardCharsets.UTF_8));
            node = Node.start(config, 0, new LocalNetwork().attach(0));
        } finally {
            System.setErr(stderr);
        }
        try (node) {
            assertFalse(Files.exists(staleData), staleData + " is discarded");
            assertTrue(notice.toString(StandardCharsets.UTF_8).contains("discarded 2 region files of an earlier run"),
                notice.toString(StandardCharsets.UTF_8));
            node.awaitPeers(Duration.ofSeconds(TestClusters.LIVENESS_SECONDS));
            assertEquals(0, node.workers().errorCount(), "the fresh messaging region holds no stale records");
            Region region = node.createRegion(DATA_REGION, REGION_SIZE);
            assertEquals(0, region.memory().get(ValueLayout.JAVA_LONG, 0), "a new region starts zeroed");
        }
    }
}
