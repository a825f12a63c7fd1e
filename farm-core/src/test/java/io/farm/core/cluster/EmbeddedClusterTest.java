package io.farm.core.cluster;

import io.farm.core.addr.RegionId;
import io.farm.core.config.ClusterConfig;
import io.farm.core.node.Worker;
import io.farm.core.testing.ShmTempDirs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

import static io.farm.core.cluster.TestClusters.await;
import static io.farm.core.cluster.TestClusters.config;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EmbeddedClusterTest {
    @TempDir(factory = ShmTempDirs.class)
    Path temp;

    @Test
    void everyWorkerPingsEveryNodeAndTheAnswerArrivesOnTheIssuingWorker() throws Exception {
        ClusterConfig config = config("pings", 3, "local", temp.resolve("pings"));
        try (EmbeddedCluster cluster = EmbeddedCluster.start(config)) {
            assertEquals(3, cluster.nodes().size());
            for (Node node : cluster.nodes()) {
                for (int w = 0; w < config.threads(); w++) {
                    for (int peer = 0; peer < config.size(); peer++) {
                        int target = peer;
                        long[] roundTrip = new long[1];
                        CompletableFuture<Worker> answeredOn = node.submit(w, worker -> worker.ping(target)
                            .thenApply(nanos -> {
                                roundTrip[0] = nanos;
                                return Worker.current();
                            }));
                        assertSame(node.workers().worker(w), await(answeredOn),
                            "the ping of node " + node.id() + " worker " + w + " to node " + peer
                                + " was answered on another thread");
                        assertTrue(roundTrip[0] > 0, "round trip of " + roundTrip[0] + " ns");
                    }
                }
                assertEquals(0, node.workers().errorCount(), "failures reported by the workers of node " + node.id());
            }
        }
    }

    @Test
    void nodesAreNumberedByTheirIdAndShareTheConfiguration() {
        ClusterConfig config = config("ids", 3, "local", temp.resolve("ids"));
        try (EmbeddedCluster cluster = EmbeddedCluster.start(config)) {
            assertSame(config, cluster.config());
            for (int id = 0; id < 3; id++) {
                assertEquals(id, cluster.node(id).id());
                assertEquals(id, cluster.node(id).fabric().nodeId());
                assertEquals("local", cluster.node(id).fabric().kind());
                assertSame(config, cluster.node(id).config());
            }
        }
    }

    @Test
    void closeRemovesTheDataDirectory() {
        Path dataDir = temp.resolve("removed");
        ClusterConfig config = config("removed", 3, "local", dataDir);
        EmbeddedCluster cluster = EmbeddedCluster.start(config);
        cluster.node(1).createRegion(RegionId.of(1, 1), TestClusters.REGION_SIZE);
        for (int id = 0; id < 3; id++) {
            assertTrue(Files.isDirectory(dataDir.resolve("node-" + id)), "node " + id + " has its directory while running");
        }

        cluster.close();

        assertFalse(Files.exists(dataDir), dataDir + " is left after close");
    }

    @Test
    void refusesAnotherFabricAndCreatesNothing() {
        Path dataDir = temp.resolve("shm");
        ClusterConfig config = config("shm", 2, "shm", dataDir);

        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> EmbeddedCluster.start(config));

        assertTrue(refused.getMessage().contains("runs on the local fabric, not shm: set fabric=local"), refused.getMessage());
        assertFalse(Files.exists(dataDir), "nothing is created for a refused configuration");
    }
}
