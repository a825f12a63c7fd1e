package io.farm.core.alloc;

import io.farm.alloc.AllocatorRegion;
import io.farm.alloc.RegionSource;
import io.farm.core.addr.RegionId;
import io.farm.core.cluster.Node;
import io.farm.core.fabric.Capability;
import io.farm.core.node.Worker;
import io.farm.core.placement.PlacementRing;
import io.farm.core.placement.ReplicaSet;
import io.farm.core.region.Region;
import io.farm.core.region.RegionStore;
import io.farm.core.rpc.RpcException;
import io.farm.core.testing.ShmTempDirs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;

import static io.farm.core.alloc.MemoryCluster.REGION_SIZE;
import static io.farm.core.alloc.MemoryCluster.SHORT_TIMEOUT;
import static io.farm.core.testing.Liveness.await;
import static io.farm.core.testing.Liveness.awaitCondition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Region allocation in an embedded cluster of three nodes, each region on all three (f = 2). */
class RegionAllocatorTest {
    @TempDir(factory = ShmTempDirs.class)
    Path temp;

    /** What the continuation of an allocation saw on the allocating worker, before returning to the test. */
    private record Allocated(AllocatorRegion region, Worker completedOn, List<String> backupsMissingIt) {
    }

    /** Allocates on worker {@code w} of {@code member} and checks the backups inside the stage's continuation. */
    private static CompletableFuture<Allocated> allocate(MemoryCluster cluster, int member, int w, int hint) {
        Node node = cluster.node(member);
        return node.submit(w, worker -> cluster.member(member).regions().newRegion(hint).thenApply(region -> {
            List<String> missing = new ArrayList<>();
            ReplicaSet replicas = cluster.config().placement().replicas(region.regionId());
            for (int i = 1; i < replicas.size(); i++) {
                Node backup = cluster.node(replicas.node(i));
                Region copy = backup.region(region.regionId());
                Path file = RegionStore.fileOf(cluster.config().dataDir(), backup.id(), region.regionId());
                if (copy == null || copy.size() != REGION_SIZE || !Files.exists(file)) {
                    missing.add("node " + backup.id() + " holds no copy: " + copy + ", file exists " + Files.exists(file));
                    continue;
                }
                try {
                    Capability capability = node.fabric().capability(backup.id(), region.regionId());
                    if (capability.size() != REGION_SIZE) {
                        missing.add("node " + backup.id() + " registered " + capability.size() + " bytes");
                    }
                } catch (RuntimeException e) {
                    missing.add("node " + backup.id() + " did not register its copy: " + e.getMessage());
                }
            }
            return new Allocated(region, Worker.current(), missing);
        }));
    }

    @Test
    void aNewRegionIsKnownToEveryBackupWhenTheAllocationCompletes() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("known"), 3, 2)) {
            for (int member = 0; member < 3; member++) {
                for (int w = 0; w < 2; w++) {
                    Allocated allocated = await(allocate(cluster, member, w, RegionSource.NO_HINT));

                    int regionId = allocated.region().regionId();
                    assertEquals(List.of(), allocated.backupsMissingIt(), "backups of " + RegionId.toString(regionId));
                    assertSame(cluster.node(member).workers().worker(w), allocated.completedOn(),
                        "the allocation completes on the worker that asked for it");
                    Region local = cluster.node(member).region(regionId);
                    assertNotNull(local, "the primary holds the region");
                    assertSame(local.memory(), allocated.region().memory(), "the allocator gets the primary's mapped copy");
                    assertEquals(REGION_SIZE, allocated.region().memory().byteSize());
                    assertEquals(0, allocated.region().memory().get(ValueLayout.JAVA_LONG, REGION_SIZE - Long.BYTES), "new regions are zero");
                }
            }
            assertEquals(0, cluster.workerErrors());
        }
    }

    @Test
    void regionIdsHaveTheAllocatingNodeAsPrimaryAndAreNeverReused() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("primary"), 3, 1)) {
            PlacementRing placement = cluster.config().placement();
            Set<Integer> seen = new HashSet<>();
            for (int member = 0; member < 3; member++) {
                for (int i = 0; i < 6; i++) {
                    int regionId = await(allocate(cluster, member, i % 2, RegionSource.NO_HINT)).region().regionId();

                    assertNotEquals(0, regionId);
                    assertFalse(RegionId.isSystem(regionId));
                    assertEquals(member, placement.primary(regionId), () -> RegionId.toString(regionId));
                    assertTrue(seen.add(regionId), () -> RegionId.toString(regionId) + " was allocated twice");
                    assertEquals(2, count(cluster, regionId), "f = 1: the primary and one backup hold it");
                }
            }
        }
    }

    @Test
    void hintedRegionsAreTheNearestFreeOnesOfTheHintsRing() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("hints"), 3, 2)) {
            PlacementRing placement = cluster.config().placement();
            Set<Integer> ofNode0 = new HashSet<>();
            int own = await(allocate(cluster, 0, 0, RegionSource.NO_HINT)).region().regionId();
            ofNode0.add(own);
            int ofNode1 = await(allocate(cluster, 1, 0, RegionSource.NO_HINT)).region().regionId();
            // Hints: node 0's own region (its neighbours are next), node 1's region (another node's arc), a far ring.
            int[] hints = {own, own, own, ofNode1, ofNode1, RegionId.of(cluster.config().rings() - 1, 123_456)};
            for (int hint : hints) {
                int expected = placement.nearbyRegionIdWithPrimary(0, hint, ofNode0::contains);

                int regionId = await(allocate(cluster, 0, 1, hint)).region().regionId();

                assertEquals(expected, regionId, () -> "hint " + RegionId.toString(hint));
                assertEquals(RegionId.ring(hint), RegionId.ring(regionId), "a hinted region is on the hint's ring");
                assertEquals(0, placement.primary(regionId));
                ofNode0.add(regionId);
            }
            assertEquals(0, cluster.workerErrors());
        }
    }

    @Test
    void aBadHintOrACallerOffTheWorkersIsRefusedAndCreatesNothing() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("refused"), 3, 2)) {
            RegionAllocator allocator = cluster.member(0).regions();
            ExecutionException system = assertThrows(ExecutionException.class,
                () -> await(cluster.node(0).submit(0, worker -> allocator.newRegion(RegionId.system(1, 0)))));
            assertInstanceOf(IllegalArgumentException.class, system.getCause());
            assertTrue(system.getCause().getMessage().contains("sys1.0 is a system region"), system.getCause().getMessage());

            int missingRing = RegionId.of(cluster.config().rings(), 5);
            ExecutionException ring = assertThrows(ExecutionException.class,
                () -> await(cluster.node(0).submit(0, worker -> allocator.newRegion(missingRing))));
            assertTrue(ring.getCause().getMessage().contains("rings 0.." + (cluster.config().rings() - 1)), ring.getCause().getMessage());

            IllegalStateException offWorker = assertThrows(IllegalStateException.class, () -> allocator.newRegion(RegionSource.NO_HINT));
            assertTrue(offWorker.getMessage().contains("must be allocated on one of its workers"), offWorker.getMessage());
            ExecutionException otherNode = assertThrows(ExecutionException.class,
                () -> await(cluster.node(1).submit(0, worker -> allocator.newRegion(RegionSource.NO_HINT))));
            assertInstanceOf(IllegalStateException.class, otherNode.getCause());
            assertTrue(otherNode.getCause().getMessage().contains("region of node 0 must be allocated on one of its workers"),
                otherNode.getCause().getMessage());

            for (int member = 0; member < 3; member++) {
                assertEquals(List.of(), dataRegions(cluster.node(member)), "node " + member + " holds no data region");
            }
        }
    }

    @Test
    void anUnreachableBackupFailsTheAllocationAndLeavesNoRegionBehind() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("unreachable"), 3, 2)) {
            cluster.node(2).close();

            ExecutionException failed = assertThrows(ExecutionException.class,
                () -> await(allocate(cluster, 0, 0, RegionSource.NO_HINT)));

            RegionAllocationException cause = assertInstanceOf(RegionAllocationException.class, failed.getCause());
            int regionId = cause.regionId();
            assertTrue(cause.getMessage().contains("was not replicated to backup 2") && cause.getMessage().contains("it is not used"),
                cause.getMessage());
            RpcException rpc = assertInstanceOf(RpcException.class, cause.getCause());
            assertEquals(RpcException.Reason.UNREACHABLE, rpc.reason());
            assertNull(cluster.node(0).region(regionId), "the primary deleted its copy");
            assertFalse(Files.exists(RegionStore.fileOf(cluster.config().dataDir(), 0, regionId)), "and its file");
            assertThrows(RuntimeException.class, () -> cluster.node(0).fabric().capability(0, regionId), "and its registration");
            // Node 1 acknowledged its copy, then is asked to drop it.
            awaitCondition("node 1 drops its copy of " + RegionId.toString(regionId) + " and deletes its file",
                () -> cluster.node(1).region(regionId) == null
                    && !Files.exists(RegionStore.fileOf(cluster.config().dataDir(), 1, regionId)));
            assertEquals(0, cluster.node(0).workers().errorCount() + cluster.node(1).workers().errorCount());
        }
    }

    @Test
    void aBackupThatRefusesFailsTheAllocationAndKeepsWhatItHeld() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("refuses"), 3, 2)) {
            // Node 2 holds the region node 0 will choose already, so it refuses to create a copy.
            int hint = RegionId.of(3, 4_000_000);
            int chosen = cluster.config().placement().nearbyRegionIdWithPrimary(0, hint, id -> false);
            Region heldBefore = cluster.node(2).createRegion(chosen, REGION_SIZE);

            ExecutionException failed = assertThrows(ExecutionException.class, () -> await(allocate(cluster, 0, 1, hint)));

            RegionAllocationException cause = assertInstanceOf(RegionAllocationException.class, failed.getCause());
            assertEquals(chosen, cause.regionId());
            RpcException rpc = assertInstanceOf(RpcException.class, cause.getCause());
            assertEquals(RpcException.Reason.FAILED, rpc.reason());
            assertTrue(rpc.getMessage().contains("RPC region-create to node 2")
                && rpc.getMessage().contains("node 2 holds region " + RegionId.toString(chosen) + " already"), rpc.getMessage());
            assertNull(cluster.node(0).region(chosen));
            awaitCondition("node 1 drops its copy", () -> cluster.node(1).region(chosen) == null);
            assertSame(heldBefore, cluster.node(2).region(chosen), "a backup that refused is not asked to release");

            int next = await(allocate(cluster, 0, 1, hint)).region().regionId();
            assertNotEquals(chosen, next, "the id of a failed allocation is not chosen again");
            assertEquals(cluster.config().placement().nearbyRegionIdWithPrimary(0, hint, id -> id == chosen), next);
        }
    }

    @Test
    void aBackupThatDoesNotAnswerInTimeFailsTheAllocationAndItsLateCopyIsReleased() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("late"), 3, 2, SHORT_TIMEOUT)) {
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Void> busy = MemoryCluster.keepBusy(cluster.node(2), 1, release);

            ExecutionException failed;
            try {
                failed = assertThrows(ExecutionException.class, () -> await(allocate(cluster, 0, 1, RegionSource.NO_HINT)));
            } finally {
                release.countDown();
            }
            await(busy);

            RegionAllocationException cause = assertInstanceOf(RegionAllocationException.class, failed.getCause());
            int regionId = cause.regionId();
            RpcException rpc = assertInstanceOf(RpcException.class, cause.getCause());
            assertEquals(RpcException.Reason.TIMEOUT, rpc.reason());
            assertTrue(rpc.getMessage().contains("to node 2") && rpc.getMessage().contains("got no answer within"), rpc.getMessage());
            assertNull(cluster.node(0).region(regionId));
            // Node 2 creates its copy late, then serves the release that followed on the same ring.
            awaitCondition("the late answer reaches node 0 and is dropped", () -> cluster.member(0).rpc().unmatchedResponses() >= 1);
            awaitCondition("node 2 drops its late copy", () -> cluster.node(2).region(regionId) == null);
            awaitCondition("node 1 drops its copy", () -> cluster.node(1).region(regionId) == null);
            assertEquals(0, cluster.workerErrors());
        }
    }

    @Test
    void withoutBackupsARegionIsReadyOnceCreatedLocally() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("cache"), 2, 0)) {
            Allocated allocated = await(allocate(cluster, 1, 0, RegionSource.NO_HINT));

            int regionId = allocated.region().regionId();
            assertEquals(1, cluster.config().placement().primary(regionId));
            assertEquals(1, count(cluster, regionId), "cache mode: the primary holds the only copy");
        }
    }

    private static int count(MemoryCluster cluster, int regionId) {
        int copies = 0;
        for (MemoryCluster.Member member : cluster.members()) {
            copies += member.node().region(regionId) != null ? 1 : 0;
        }
        return copies;
    }

    private static List<Integer> dataRegions(Node node) {
        List<Integer> ids = new ArrayList<>();
        try (var files = Files.list(RegionStore.nodeDir(node.config().dataDir(), node.id()))) {
            files.map(f -> f.getFileName().toString())
                .filter(name -> name.startsWith("region-") && !name.startsWith("region-ff"))
                .forEach(name -> ids.add(Integer.parseUnsignedInt(name.substring(7, 15), 16)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return ids;
    }
}
