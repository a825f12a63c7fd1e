package io.farm.core.alloc;

import io.farm.alloc.RegionSource;
import io.farm.core.addr.RegionId;
import io.farm.core.cluster.Node;
import io.farm.core.config.ClusterConfig;
import io.farm.core.fabric.Capability;
import io.farm.core.fabric.shm.ShmFabric;
import io.farm.core.placement.PlacementRing;
import io.farm.core.region.Region;
import io.farm.core.region.RegionStore;
import io.farm.core.rpc.Rpc;
import io.farm.core.rpc.RpcException;
import io.farm.core.testing.NodeJvm;
import io.farm.core.testing.NodeJvms;
import io.farm.core.testing.ShmTempDirs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import static io.farm.core.alloc.MemoryCluster.REGION_SIZE;
import static io.farm.core.testing.Liveness.await;
import static io.farm.core.testing.Liveness.awaitCondition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Region allocation and epochs across processes over the shm fabric: this JVM is node 0, a child
 * JVM ({@link AllocatingNodeMain}) node 1; each region has one backup (f = 1), so each node backs
 * up the other's regions.
 */
class ShmRegionAllocationProcessTest {
    private static final Duration STARTUP = Duration.ofSeconds(60);
    /** Bytes of a backup copy read back through the fabric. */
    private static final int READ = 64 * 1024;

    @TempDir(factory = ShmTempDirs.class)
    Path temp;

    @RegisterExtension
    final NodeJvms jvms = new NodeJvms();

    /** What node 0 saw of its backup when its allocation completed, on the allocating worker. */
    private record Allocated(int regionId, boolean backupFileExists, long backupFileSize, Capability backupCapability) {
    }

    @Test
    void aRegionIsKnownToItsBackupInAnotherProcessBeforeFirstUse() throws Exception {
        ClusterConfig config = MemoryCluster.config(temp.resolve("cluster"), 2, 1, "shm");
        Path configFile = temp.resolve("cluster.properties");
        config.store(configFile);
        NodeJvm child = jvms.start("node 1", AllocatingNodeMain.class, configFile.toString(), "1");
        PlacementRing placement = config.placement();

        try (Node node = Node.start(config, 0, ShmFabric.open(config.dataDir(), 0))) {
            Rpc rpc = Rpc.attach(node);
            RegionAllocator regions = RegionAllocator.attach(node, rpc);
            ClusterEpochs epochs = ClusterEpochs.attach(node);
            child.awaitLine("READY", STARTUP);
            node.awaitPeers(STARTUP);

            // Node 0 allocates: node 1's copy exists and is registered when the stage completes.
            Allocated allocated = await(node.submit(0, worker -> regions.newRegion(RegionSource.NO_HINT).thenApply(region -> {
                Path file = RegionStore.fileOf(config.dataDir(), 1, region.regionId());
                boolean exists = Files.exists(file);
                long size = exists ? sizeOf(file) : -1;
                return new Allocated(region.regionId(), exists, size, node.fabric().capability(1, region.regionId()));
            })));
            int regionId = allocated.regionId();
            assertEquals(0, placement.primary(regionId));
            assertEquals(1, placement.replicas(regionId).node(1));
            assertTrue(allocated.backupFileExists(), "node 1's file of " + RegionId.toString(regionId));
            assertEquals(REGION_SIZE, allocated.backupFileSize());
            assertEquals(REGION_SIZE, allocated.backupCapability().size());
            MemorySegment copy = readRemotely(node, allocated.backupCapability());
            for (long offset = 0; offset < READ; offset += Long.BYTES) {
                assertEquals(0, copy.get(ValueLayout.JAVA_LONG, offset), "node 1's copy is zero-filled at " + offset);
            }

            // Node 1 allocates near node 0's region: node 0 holds the copy before node 1 reports the region.
            await(node.submit(0, worker -> {
                MemorySegment hint = Arena.ofAuto().allocate(Integer.BYTES);
                hint.set(ValueLayout.JAVA_INT, 0, regionId);
                worker.messenger().send(1, AllocatingNodeMain.ALLOCATE, hint, 0, Integer.BYTES);
                return CompletableFuture.completedFuture(null);
            }));
            String line = child.awaitLine("ALLOCATED", STARTUP);
            int ofNode1 = Integer.parseInt(line.substring("ALLOCATED ".length()));
            assertEquals(1, placement.primary(ofNode1));
            assertEquals(RegionId.ring(regionId), RegionId.ring(ofNode1), "near the hint: on its ring");
            assertEquals(placement.nearbyRegionIdWithPrimary(1, regionId, id -> false), ofNode1, "the nearest free position");
            Region backup = node.region(ofNode1);
            assertNotNull(backup, "node 0 holds the copy of node 1's region");
            assertEquals(REGION_SIZE, backup.size());
            assertEquals(REGION_SIZE, node.fabric().capability(0, ofNode1).size(), "and has registered it");

            // Epochs: node 1 in the other process acknowledges node 0's advance.
            epochs.requestAdvance();
            awaitCondition("node 1 acknowledges node 0's advance", () -> epochs.safe() == 1);

            // Node 1 leaves: an allocation now fails cleanly and leaves no region on node 0.
            await(node.submit(0, worker -> {
                worker.messenger().send(1, AllocatingNodeMain.STOP, MemorySegment.NULL, 0, 0);
                return worker.ping(0);
            }));
            assertEquals("CLOSED node 1 with 0 worker errors", child.awaitLine("CLOSED", STARTUP));
            assertEquals(0, child.awaitExit(STARTUP), child.logTail());
            assertFalse(node.fabric().isReachable(1), "node 1 is gone");
            ExecutionException failed = assertThrows(ExecutionException.class,
                () -> await(node.submit(1, worker -> regions.newRegion(RegionSource.NO_HINT))));
            RegionAllocationException cause = assertInstanceOf(RegionAllocationException.class, failed.getCause());
            assertEquals(RpcException.Reason.UNREACHABLE, assertInstanceOf(RpcException.class, cause.getCause()).reason());
            assertNull(node.region(cause.regionId()));
            assertFalse(Files.exists(RegionStore.fileOf(config.dataDir(), 0, cause.regionId())));
            assertEquals(0, node.workers().errorCount());
        }
    }

    private static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads the first {@value #READ} bytes of a region of another node with a one-sided read. */
    private static MemorySegment readRemotely(Node node, Capability capability) throws Exception {
        MemorySegment buffer = Arena.ofAuto().allocate(READ, 64);
        await(node.submit(0, worker -> {
            CompletableFuture<Void> done = new CompletableFuture<>();
            worker.port().read(capability, 0, READ, buffer, 0, failure -> {
                if (failure != null) {
                    done.completeExceptionally(failure);
                } else {
                    done.complete(null);
                }
            });
            return done;
        }));
        return buffer;
    }
}
