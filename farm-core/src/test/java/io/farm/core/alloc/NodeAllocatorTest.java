package io.farm.core.alloc;

import io.farm.alloc.AllocatorStats;
import io.farm.alloc.ObjectAddress;
import io.farm.alloc.ObjectHeader;
import io.farm.alloc.RegionLayout;
import io.farm.alloc.SizeClasses;
import io.farm.core.addr.GlobalAddress;
import io.farm.core.addr.RegionId;
import io.farm.core.cluster.Node;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.node.Worker;
import io.farm.core.placement.PlacementRing;
import io.farm.core.placement.ReplicaSet;
import io.farm.core.region.Region;
import io.farm.core.rpc.RpcException;
import io.farm.core.testing.ShmTempDirs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

import static io.farm.core.alloc.MemoryCluster.REGION_SIZE;
import static io.farm.core.testing.Liveness.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Object allocation in an embedded cluster of three nodes, each region on all three (f = 2),
 * 4 MiB regions of four 1 MiB blocks (the block table and three blocks of objects).
 */
class NodeAllocatorTest {
    private static final int BLOCK_SIZE = RegionLayout.DEFAULT_BLOCK_SIZE;

    @TempDir(factory = ShmTempDirs.class)
    Path temp;

    /** An allocation's address and the worker its stage completed on. */
    private record Allocated(long address, Worker completedOn) {
    }

    private static CompletableFuture<Allocated> allocate(MemoryCluster cluster, int member, int w, int size, long hint) {
        return cluster.node(member).submit(w, worker -> cluster.member(member).objects().allocate(worker, size, hint)
            .thenApply(address -> new Allocated(address, Worker.current())));
    }

    private static long allocated(MemoryCluster cluster, int member, int w, int size, long hint) throws Exception {
        Allocated allocated = await(allocate(cluster, member, w, size, hint));
        assertSame(cluster.node(member).workers().worker(w), allocated.completedOn(), "the stage completes on the calling worker");
        return allocated.address();
    }

    private static CompletableFuture<Void> free(MemoryCluster cluster, int member, int w, long address) {
        return cluster.node(member).submit(w, worker -> cluster.member(member).objects().free(worker, address));
    }

    /** The incarnation word of the object at {@code address} in the primary copy of its region. */
    private static long incarnationWord(MemoryCluster cluster, long address) {
        int regionId = GlobalAddress.regionId(address);
        Region region = cluster.node(cluster.config().placement().primary(regionId)).region(regionId);
        return ObjectHeader.incarnationWord(region.memory(), GlobalAddress.offset(address));
    }

    private static void assertHeldByItsReplicas(MemoryCluster cluster, int primary, long address) {
        int regionId = GlobalAddress.regionId(address);
        ReplicaSet replicas = cluster.config().placement().replicas(regionId);
        assertEquals(primary, replicas.primary(), "primary of " + GlobalAddress.toString(address));
        assertEquals(3, replicas.size());
        for (int i = 0; i < replicas.size(); i++) {
            Region copy = cluster.node(replicas.node(i)).region(regionId);
            assertNotNull(copy, "node " + replicas.node(i) + " holds region " + RegionId.toString(regionId));
            assertEquals(REGION_SIZE, copy.size());
        }
        assertTrue(ObjectHeader.isAllocated(incarnationWord(cluster, address)), "allocated bit of " + GlobalAddress.toString(address));
    }

    private static RuntimeException refusedAtOnce(MemoryCluster cluster, int member, Function<NodeWorker, CompletionStage<?>> operation) {
        ExecutionException failed = assertThrows(ExecutionException.class,
            () -> await(cluster.node(member).submit(0, worker -> operation.apply(worker).thenApply(x -> (Object) x))));
        return assertInstanceOf(RuntimeException.class, failed.getCause());
    }

    private static RpcException refusedByThePrimary(CompletableFuture<?> operation) {
        ExecutionException failed = assertThrows(ExecutionException.class, () -> await(operation));
        RpcException refused = assertInstanceOf(RpcException.class, failed.getCause());
        assertEquals(RpcException.Reason.FAILED, refused.reason());
        return refused;
    }

    private static void assertMessage(Throwable thrown, String part) {
        assertTrue(thrown.getMessage().contains(part), () -> "\"" + thrown.getMessage() + "\" lacks \"" + part + "\"");
    }

    /** A data region id with primary {@code node} that no allocator holds. */
    private static int unallocatedRegionWithPrimary(MemoryCluster cluster, int node) {
        PlacementRing placement = cluster.config().placement();
        Random random = new Random(42);
        while (true) {
            int regionId = placement.regionIdWithPrimary(node, random);
            if (cluster.node(node).region(regionId) == null) {
                return regionId;
            }
        }
    }

    @Test
    void aLocalAllocationIsInARegionOfThisNodeThatItsBackupsHold() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("local"), 3, 2)) {
            for (int member = 0; member < 3; member++) {
                for (int w = 0; w < 2; w++) {
                    long address = allocated(cluster, member, w, 100, GlobalAddress.NULL);
                    assertHeldByItsReplicas(cluster, member, address);
                    assertEquals(0, GlobalAddress.offset(address) % ObjectHeader.ALIGNMENT, "cache-line aligned");
                }
                assertEquals(2, cluster.member(member).objects().stats().allocations());
            }
            assertEquals(0, cluster.workerErrors());
        }
    }

    @Test
    void anAllocationHintedAtAnotherNodesObjectHappensOnThatNodeNearTheHint() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("hinted"), 3, 2)) {
            long hint = allocated(cluster, 1, 0, 128, GlobalAddress.NULL);

            // Worker 0 of node 0 is served by worker 0 of node 1, whose slab allocates from the hint's block.
            long sameClass = allocated(cluster, 0, 0, 128, hint);
            // Worker 1 is served by worker 1 of node 1: another slab, so another block of the hint's region.
            long otherSlab = allocated(cluster, 0, 1, 4096, hint);
            // A hint at node 2 from node 0 goes to node 2's worker 1.
            long hintOn2 = allocated(cluster, 2, 1, 64, GlobalAddress.NULL);
            long nearHintOn2 = allocated(cluster, 0, 1, 64, hintOn2);

            assertHeldByItsReplicas(cluster, 1, sameClass);
            assertEquals(GlobalAddress.regionId(hint), GlobalAddress.regionId(sameClass), "the hint's region");
            assertEquals(GlobalAddress.offset(hint) / BLOCK_SIZE, GlobalAddress.offset(sameClass) / BLOCK_SIZE, "the hint's block");
            assertHeldByItsReplicas(cluster, 1, otherSlab);
            assertEquals(GlobalAddress.regionId(hint), GlobalAddress.regionId(otherSlab), "the hint's region");
            assertNotEquals(GlobalAddress.offset(hint) / BLOCK_SIZE, GlobalAddress.offset(otherSlab) / BLOCK_SIZE);
            assertHeldByItsReplicas(cluster, 2, nearHintOn2);
            assertEquals(GlobalAddress.offset(hintOn2) / BLOCK_SIZE, GlobalAddress.offset(nearHintOn2) / BLOCK_SIZE);
            assertTrue(cluster.member(0).objects().regions().isEmpty(), "node 0 allocated nothing itself");
            assertEquals(0, cluster.member(0).objects().stats().allocations());
            assertEquals(3, cluster.member(1).objects().stats().allocations());
            assertEquals(2, cluster.member(2).objects().stats().allocations());
            assertEquals(0, cluster.workerErrors());
        }
    }

    @Test
    void aRemoteFreeFreesTheObjectOnItsNodeAndASecondFreeIsRefusedAcrossTheRpc() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("free"), 3, 2)) {
            long hint = allocated(cluster, 1, 0, 256, GlobalAddress.NULL);
            long object = allocated(cluster, 0, 0, 256, hint);
            long incarnation = ObjectHeader.incarnation(incarnationWord(cluster, object));

            await(free(cluster, 2, 1, object));

            long freed = incarnationWord(cluster, object);
            assertFalse(ObjectHeader.isAllocated(freed));
            assertEquals(incarnation + 1, ObjectHeader.incarnation(freed), "a free increments the incarnation");
            assertEquals(1, cluster.member(1).objects().stats().frees());
            assertEquals(0, cluster.member(2).objects().stats().frees(), "the free ran on the object's node");

            RpcException twice = refusedByThePrimary(free(cluster, 0, 1, object));
            assertMessage(twice, "RPC object-free to node 1");
            assertMessage(twice, "failed: object at " + ObjectAddress.toString(object) + " is not allocated (incarnation "
                + (incarnation + 1) + "): it was freed already, or never allocated");
            assertEquals(freed, incarnationWord(cluster, object), "the refused free changed nothing");
            assertEquals(1, cluster.member(1).objects().stats().frees());

            // The slot is reused by its class, and freed locally on its own node.
            assertEquals(object, allocated(cluster, 0, 0, 256, hint), "the freed slot is reused first");
            await(free(cluster, 1, 0, object));
            assertThrows(ExecutionException.class, () -> await(free(cluster, 1, 0, object)), "a local double free is refused too");
            assertEquals(0, cluster.workerErrors());
        }
    }

    @Test
    void badInputIsRefusedClearlyAndChangesNothing() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("bad"), 3, 2)) {
            long onNode1 = allocated(cluster, 1, 0, 64, GlobalAddress.NULL);
            long onNode0 = allocated(cluster, 0, 0, 64, GlobalAddress.NULL);
            List<AllocatorStats> before = new ArrayList<>();
            for (int member = 0; member < 3; member++) {
                before.add(cluster.member(member).objects().stats());
            }
            NodeAllocator objects = cluster.member(0).objects();

            assertMessage(refusedAtOnce(cluster, 0, worker -> objects.allocate(worker, 0, onNode1)),
                "object size 0 out of range: objects are 1.." + SizeClasses.MAX_SIZE + " bytes (1 MiB)");
            assertMessage(refusedAtOnce(cluster, 0, worker -> objects.allocate(worker, SizeClasses.MAX_SIZE + 1, GlobalAddress.NULL)),
                "object size 1048577 out of range");
            assertMessage(refusedAtOnce(cluster, 0, worker -> objects.allocate(worker, -5, onNode1)), "object size -5 out of range");
            assertMessage(refusedAtOnce(cluster, 0, worker -> objects.allocate(worker, 64, GlobalAddress.of(0, 64))),
                "location hint r0:0+0x40 is not an object address: region 0 is never allocated");
            int system = RegionId.system(1, 0);
            assertMessage(refusedAtOnce(cluster, 0, worker -> objects.free(worker, GlobalAddress.of(system, 64))),
                "is not an object address: region " + RegionId.toString(system) + " is no data region of cluster memory");
            int unknownHere = unallocatedRegionWithPrimary(cluster, 0);
            assertMessage(refusedAtOnce(cluster, 0, worker -> objects.allocate(worker, 64, GlobalAddress.of(unknownHere, 0))),
                "which is not one of this node's 1 allocator regions");
            assertMessage(refusedAtOnce(cluster, 0, worker -> objects.free(worker, onNode0 + 8)), "is not on an object boundary");

            int unknownOn1 = unallocatedRegionWithPrimary(cluster, 1);
            RpcException unknownHint = refusedByThePrimary(allocate(cluster, 0, 0, 64, GlobalAddress.of(unknownOn1, 64)));
            assertMessage(unknownHint, "RPC object-allocate to node 1");
            assertMessage(unknownHint, "failed: location hint " + ObjectAddress.toString(GlobalAddress.of(unknownOn1, 64))
                + " is in region 0x" + Integer.toHexString(unknownOn1) + ", which is not one of this node's 1 allocator regions");
            RpcException unknownFree = refusedByThePrimary(free(cluster, 0, 1, GlobalAddress.of(unknownOn1, 64)));
            assertMessage(unknownFree, "failed: address to free");
            RpcException notAnObject = refusedByThePrimary(free(cluster, 2, 0, onNode1 + 8));
            assertMessage(notAnObject, "is not on an object boundary");
            RpcException table = refusedByThePrimary(free(cluster, 2, 0, GlobalAddress.of(GlobalAddress.regionId(onNode1), 64)));
            assertMessage(table, "block 0, the region's block table");

            IllegalStateException offWorker = assertThrows(IllegalStateException.class,
                () -> objects.allocate(cluster.node(0).worker(0), 64, GlobalAddress.NULL));
            assertMessage(offWorker, "object allocate must run on the thread of worker farm-node0-worker0");
            assertMessage(refusedAtOnce(cluster, 1, worker -> objects.free(worker, onNode1)),
                "object free on node 0 with a worker of node 1");

            for (int member = 0; member < 3; member++) {
                assertEquals(before.get(member), cluster.member(member).objects().stats(), "node " + member + " is unchanged");
            }
            assertTrue(ObjectHeader.isAllocated(incarnationWord(cluster, onNode1)));
            assertTrue(ObjectHeader.isAllocated(incarnationWord(cluster, onNode0)));
            assertEquals(0, cluster.workerErrors());
        }
    }

    @Test
    void misroutedOrMalformedRequestsAreRefusedByTheCallee() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("misrouted"), 3, 2)) {
            long onNode1 = allocated(cluster, 1, 0, 64, GlobalAddress.NULL);
            AllocatorStats before = cluster.member(2).objects().stats();
            MemorySegment arguments = Arena.ofAuto().allocate(AllocationMessageDescriptor.OBJECT_ALLOCATE_LENGTH);
            MemoryCluster.Member caller = cluster.member(0);

            AllocationMessageDescriptor.writeAddress(arguments, 0, onNode1);
            RpcException misrouted = refusedByThePrimary(cluster.node(0).submit(0, worker -> caller.rpc().call(worker, 2,
                AllocationMessageDescriptor.OBJECT_FREE, arguments, 0, AllocationMessageDescriptor.ADDRESS_LENGTH, Duration.ofSeconds(30),
                (result, offset, length) -> length)));
            assertMessage(misrouted, "node 0 sent address to free " + GlobalAddress.toString(onNode1) + " to node 2, but its region "
                + RegionId.toString(GlobalAddress.regionId(onNode1)) + " has node 1 as primary");
            AllocationMessageDescriptor.writeObjectAllocate(arguments, 0, 64, onNode1);
            RpcException shortArguments = refusedByThePrimary(cluster.node(0).submit(0, worker -> caller.rpc().call(worker, 1,
                AllocationMessageDescriptor.OBJECT_ALLOCATE, arguments, 0, 12, Duration.ofSeconds(30), (result, offset, length) -> length)));
            assertMessage(shortArguments, "malformed object-allocate arguments from node 0: 12 bytes, expected 16");

            assertEquals(before, cluster.member(2).objects().stats());
            assertEquals(1, cluster.member(1).objects().stats().allocations());
            assertTrue(ObjectHeader.isAllocated(incarnationWord(cluster, onNode1)));
            assertEquals(0, cluster.workerErrors());
        }
    }

    @Test
    void allocationsKeepWorkingAcrossNewRegionsLocalAndRemote() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("regions"), 3, 2)) {
            // A 1 MiB object fills a block; a region has three blocks of objects.
            Set<Long> addresses = new HashSet<>();
            Set<Integer> regions = new HashSet<>();
            long previous = GlobalAddress.NULL;
            for (int i = 0; i < 7; i++) {
                long address = allocated(cluster, 0, 0, SizeClasses.MAX_SIZE, previous);
                assertHeldByItsReplicas(cluster, 0, address);
                assertTrue(addresses.add(address), "a new object");
                if (previous != GlobalAddress.NULL && regions.contains(GlobalAddress.regionId(address))) {
                    assertEquals(GlobalAddress.regionId(previous), GlobalAddress.regionId(address), "the hint's region while it has room");
                } else if (previous != GlobalAddress.NULL) {
                    assertEquals(RegionId.ring(GlobalAddress.regionId(previous)), RegionId.ring(GlobalAddress.regionId(address)),
                        "a new region on the hint's ring");
                }
                regions.add(GlobalAddress.regionId(address));
                previous = address;
            }
            assertEquals(3, regions.size(), "seven blocks of objects take three regions");
            assertEquals(3, cluster.member(0).objects().stats().regions());

            // Node 1 hints at node 0's last object: node 0 allocates, in a fourth region when the third is full.
            for (int i = 0; i < 3; i++) {
                long address = allocated(cluster, 1, 0, SizeClasses.MAX_SIZE, previous);
                assertHeldByItsReplicas(cluster, 0, address);
                assertTrue(addresses.add(address), "a new object");
                regions.add(GlobalAddress.regionId(address));
            }
            assertEquals(4, regions.size());
            assertEquals(4, cluster.member(0).objects().stats().regions());
            assertTrue(cluster.member(1).objects().regions().isEmpty());
            assertEquals(0, cluster.workerErrors());
        }
    }

    @Test
    void attachingRefusesAnotherNodesPartsAndASecondAllocator() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("attach"), 3, 2)) {
            Node node = cluster.node(0);
            MemoryCluster.Member other = cluster.member(1);
            MemoryCluster.Member own = cluster.member(0);
            assertMessage(assertThrows(IllegalArgumentException.class,
                () -> NodeAllocator.attach(node, own.rpc(), other.regions(), own.epochs())),
                "the region allocator of node 1 cannot serve the allocator of node 0");
            assertMessage(assertThrows(IllegalArgumentException.class,
                () -> NodeAllocator.attach(node, own.rpc(), own.regions(), own.epochs(), new RegionLayout(8 << 20), 4)),
                "region of 4194304 bytes cannot be cut into blocks of 8388608 bytes");
            assertMessage(assertThrows(IllegalStateException.class,
                () -> NodeAllocator.attach(node, own.rpc(), own.regions(), own.epochs())),
                "RPC method 3 is registered on node 0 already, as object-allocate");
        }
    }
}
