package io.farm.core.alloc;

import io.farm.alloc.AllocatorRegion;
import io.farm.alloc.BlockState;
import io.farm.alloc.RegionLayout;
import io.farm.core.addr.GlobalAddress;
import io.farm.core.addr.RegionId;
import io.farm.core.fabric.PeerUnreachableException;
import io.farm.core.node.Worker;
import io.farm.core.placement.ReplicaSet;
import io.farm.core.region.Region;
import io.farm.core.testing.Liveness;
import io.farm.core.testing.ShmTempDirs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.farm.core.testing.Liveness.await;
import static io.farm.core.testing.Liveness.awaitCondition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Block tables reach the backups at allocation time: in an embedded cluster of three nodes, each
 * region on all three (f = 2), 4 MiB regions of four 1 MiB blocks, every backup's copy of a
 * region's block 0 equals the primary's as soon as an allocation or free completes.
 */
class BlockTableReplicationTest {
    private static final int BLOCK_SIZE = RegionLayout.DEFAULT_BLOCK_SIZE;
    /** An object that fills a block: each allocation takes a block, each free releases one. */
    private static final int WHOLE_BLOCK = BLOCK_SIZE;

    @TempDir(factory = ShmTempDirs.class)
    Path temp;

    private static long allocated(MemoryCluster cluster, int member, int w, int size, long hint) throws Exception {
        return await(cluster.node(member).submit(w, worker -> cluster.member(member).objects().allocate(worker, size, hint)
            .thenApply(address -> {
                assertSame(cluster.node(member).workers().worker(w), Worker.current(), "the stage completes on the calling worker");
                return address;
            })));
    }

    private static void freed(MemoryCluster cluster, int member, int w, long address) throws Exception {
        await(cluster.node(member).submit(w, worker -> cluster.member(member).objects().free(worker, address)));
    }

    /** Every region of every node's allocator: block 0 of each backup's copy equals the primary's, byte for byte. */
    private static void assertBackupsHoldThePrimarysBlockTables(MemoryCluster cluster) {
        for (MemoryCluster.Member member : cluster.members()) {
            for (AllocatorRegion region : member.objects().regions()) {
                int regionId = region.regionId();
                ReplicaSet replicas = cluster.config().placement().replicas(regionId);
                assertEquals(member.node().id(), replicas.primary());
                MemorySegment primary = region.memory().asSlice(0, BLOCK_SIZE);
                for (int i = 1; i < replicas.size(); i++) {
                    int backup = replicas.node(i);
                    Region copy = cluster.node(backup).region(regionId);
                    assertNotNull(copy, "backup " + backup + " holds region " + RegionId.toString(regionId));
                    long mismatch = copy.memory().asSlice(0, BLOCK_SIZE).mismatch(primary);
                    assertEquals(-1L, mismatch, () -> "first byte of block 0 of region " + RegionId.toString(regionId)
                        + " where backup " + backup + " differs from primary " + replicas.primary());
                }
            }
        }
    }

    private static long stateWord(MemoryCluster cluster, int node, long address) {
        int regionId = GlobalAddress.regionId(address);
        return RegionLayout.blockState(cluster.node(node).region(regionId).memory(), GlobalAddress.offset(address) / BLOCK_SIZE);
    }

    @Test
    void backupsHoldThePrimarysBlockZeroAfterEveryAllocationAndFree() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("tables"), 3, 2)) {
            List<Long> live = new ArrayList<>();
            // Node 0, both workers: whole-block objects take blocks 1..3 of a first region, then a second region.
            for (int i = 0; i < 4; i++) {
                live.add(allocated(cluster, 0, i % 2, WHOLE_BLOCK, GlobalAddress.NULL));
                assertBackupsHoldThePrimarysBlockTables(cluster);
            }
            long first = live.getFirst();
            int firstRegion = GlobalAddress.regionId(first);
            ReplicaSet replicas = cluster.config().placement().replicas(firstRegion);
            assertEquals(BlockState.slab(BlockState.sizeClass(stateWord(cluster, 0, first)), 0),
                stateWord(cluster, replicas.node(2), first), "a backup sees the block taken by slab 0");

            // Frees release blocks: by their own worker, by the other worker, and from another node over RPC.
            freed(cluster, 0, 0, live.remove(0));
            assertBackupsHoldThePrimarysBlockTables(cluster);
            assertEquals(BlockState.RELEASED, BlockState.kind(stateWord(cluster, replicas.node(1), first)), "a backup sees it released");
            freed(cluster, 0, 0, live.remove(0));
            freed(cluster, 2, 1, live.remove(0));
            // Worker 1's slab takes in the free handed over by worker 0 on its next operation.
            live.add(allocated(cluster, 0, 1, 64, GlobalAddress.NULL));
            assertBackupsHoldThePrimarysBlockTables(cluster);

            // Released blocks are taken again: by their class at once, and from another node near a hint.
            live.add(allocated(cluster, 0, 0, WHOLE_BLOCK, GlobalAddress.NULL));
            live.add(allocated(cluster, 1, 1, WHOLE_BLOCK, first));
            live.add(allocated(cluster, 1, 0, 100, GlobalAddress.NULL));
            assertBackupsHoldThePrimarysBlockTables(cluster);
            for (long address : live) {
                freed(cluster, 0, 1, address);
                assertBackupsHoldThePrimarysBlockTables(cluster);
            }
            assertTrue(cluster.member(0).objects().regions().size() >= 2, "node 0 used a second region");
            assertEquals(0, cluster.workerErrors());
        }
    }

    @Test
    void aBlockReleasedByOneWorkerAndTakenByAnotherReachesTheBackupsInThatOrder() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("order"), 3, 2)) {
            long released = allocated(cluster, 0, 0, WHOLE_BLOCK, GlobalAddress.NULL);
            allocated(cluster, 0, 0, WHOLE_BLOCK, GlobalAddress.NULL);
            int blockIndex = GlobalAddress.offset(released) / BLOCK_SIZE;
            MemorySegment primary = cluster.node(0).region(GlobalAddress.regionId(released)).memory();

            // Worker 0 frees the object, which releases its block, and stops before it performs the
            // write of the RELEASED word to the backups (its port performs writes when it polls).
            CountDownLatch freeing = new CountDownLatch(1);
            CountDownLatch resume = new CountDownLatch(1);
            CompletableFuture<Void> free = cluster.node(0).submit(0, worker -> {
                CompletionStage<Void> stage = cluster.member(0).objects().free(worker, released);
                freeing.countDown();
                try {
                    assertTrue(resume.await(Liveness.LIVENESS_SECONDS, TimeUnit.SECONDS), "the test resumes worker 0");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
                return stage;
            });
            assertTrue(freeing.await(Liveness.LIVENESS_SECONDS, TimeUnit.SECONDS));
            assertEquals(BlockState.RELEASED, BlockState.kind(RegionLayout.blockState(primary, blockIndex)));

            // Worker 1 takes the released block at once; its SLAB word must not overtake the RELEASED one.
            CompletableFuture<Long> taken = cluster.node(0).submit(1,
                worker -> cluster.member(0).objects().allocate(worker, WHOLE_BLOCK, GlobalAddress.NULL));
            awaitCondition("worker 1's slab takes the released block",
                () -> BlockState.kind(RegionLayout.blockState(primary, blockIndex)) == BlockState.SLAB);
            resume.countDown();

            await(free);
            assertEquals(released, await(taken), "the released block's slot is taken again");
            assertEquals(1, BlockState.owner(RegionLayout.blockState(primary, blockIndex)));
            assertBackupsHoldThePrimarysBlockTables(cluster);
            assertEquals(0, cluster.workerErrors());
        }
    }

    @Test
    void anUnreachableBackupFailsTheAllocationThatTookABlock() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("unreachable"), 3, 2)) {
            long first = allocated(cluster, 0, 0, WHOLE_BLOCK, GlobalAddress.NULL);
            int regionId = GlobalAddress.regionId(first);
            cluster.node(2).close();

            CompletableFuture<Long> second = cluster.node(0).submit(0,
                worker -> cluster.member(0).objects().allocate(worker, WHOLE_BLOCK, first));
            ExecutionException failed = assertThrows(ExecutionException.class, () -> await(second));

            BlockTableReplicationException cause = assertInstanceOf(BlockTableReplicationException.class, failed.getCause());
            assertEquals(regionId, cause.regionId());
            assertTrue(cause.getMessage().contains("of region " + RegionId.toString(regionId) + " of node 0 did not reach backup 2"),
                cause.getMessage());
            assertInstanceOf(PeerUnreachableException.class, cause.getCause());
            assertEquals(2, cluster.member(0).objects().stats().allocations());
            assertEquals(1, cluster.member(0).objects().stats().frees(), "the object of the failed allocation was freed again");
        }
    }
}
