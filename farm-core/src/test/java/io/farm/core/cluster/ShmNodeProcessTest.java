package io.farm.core.cluster;

import io.farm.core.config.ClusterConfig;
import io.farm.core.fabric.Capability;
import io.farm.core.fabric.shm.ShmFabric;
import io.farm.core.node.Worker;
import io.farm.core.region.RegionStore;
import io.farm.core.testing.NodeJvm;
import io.farm.core.testing.NodeJvms;
import io.farm.core.testing.ShmTempDirs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static io.farm.core.cluster.TestClusters.await;
import static io.farm.core.cluster.TestClusters.config;
import static io.farm.core.cluster.TestClusters.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Two nodes over the shm fabric in two processes: this JVM is node 0, a child JVM node 1. */
class ShmNodeProcessTest {
    private static final Duration STARTUP = Duration.ofSeconds(60);

    @TempDir(factory = ShmTempDirs.class)
    Path temp;

    @RegisterExtension
    final NodeJvms jvms = new NodeJvms();

    @Test
    void pingsAndOneSidedReadsCrossProcesses() throws Exception {
        ClusterConfig config = config("processes", 2, "shm", temp.resolve("cluster"));
        Path configFile = temp.resolve("cluster.properties");
        config.store(configFile);
        NodeJvm child = jvms.start("node 1", ServingNodeMain.class, configFile.toString(), "1");

        try (Node node = Node.start(config, 0, ShmFabric.open(config.dataDir(), 0))) {
            child.awaitLine("READY", STARTUP);
            node.awaitPeers(STARTUP);

            for (int w = 0; w < config.threads(); w++) {
                CompletableFuture<Worker> answeredOn = node.submit(w, worker -> worker.ping(1).thenApply(rtt -> Worker.current()));
                assertSame(node.workers().worker(w), await(answeredOn), "the answer of node 1 arrives on the pinging worker");
            }

            MemorySegment read = Arena.ofAuto().allocate(ServingNodeMain.FILLED, 64);
            CompletableFuture<Capability> readFrom = node.submit(0, worker -> {
                Capability capability = worker.capability(1, ServingNodeMain.REGION);
                CompletableFuture<Capability> done = new CompletableFuture<>();
                worker.port().read(capability, 0, (int) ServingNodeMain.FILLED, read, 0, failure -> {
                    if (failure != null) {
                        done.completeExceptionally(failure);
                    } else {
                        done.complete(capability);
                    }
                });
                return done;
            });
            Capability capability = await(readFrom);
            assertEquals(config.regionSize(), capability.size());
            for (long offset = 0; offset < ServingNodeMain.FILLED; offset += Long.BYTES) {
                assertEquals(pattern(ServingNodeMain.REGION, offset), read.get(ValueLayout.JAVA_LONG, offset),
                    "word at " + offset + " of the region of node 1");
            }

            await(node.submit(0, worker -> {
                worker.messenger().send(1, ServingNodeMain.STOP, MemorySegment.ofArray(new long[1]), 0, Long.BYTES);
                return CompletableFuture.completedFuture(null);
            }));
            assertEquals("CLOSED node 1 with 0 worker errors", child.awaitLine("CLOSED", STARTUP));
            assertEquals(0, child.awaitExit(STARTUP), child.logTail());
            assertFalse(Files.exists(RegionStore.nodeDir(config.dataDir(), 1)), "node 1 deleted its files when it closed");
            assertEquals(0, node.workers().errorCount());
        }
        assertFalse(Files.exists(RegionStore.nodeDir(config.dataDir(), 0)), "node 0 deleted its files when it closed");
        assertTrue(Files.isDirectory(config.dataDir()), "the nodes delete their own directories only");
    }
}
