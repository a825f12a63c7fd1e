package io.farm.core.alloc;

import io.farm.alloc.AllocatorRegion;
import io.farm.alloc.AllocatorStats;
import io.farm.alloc.BlockAllocator;
import io.farm.alloc.RegionLayout;
import io.farm.alloc.SizeClasses;
import io.farm.alloc.SlabAllocator;
import io.farm.core.addr.GlobalAddress;
import io.farm.core.addr.RegionId;
import io.farm.core.cluster.Node;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.placement.PlacementRing;
import io.farm.core.rpc.Rpc;
import io.farm.core.rpc.RpcException;
import io.farm.core.rpc.RpcReply;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import static io.farm.core.alloc.AllocationMessageDescriptor.ADDRESS_LENGTH;
import static io.farm.core.alloc.AllocationMessageDescriptor.OBJECT_ALLOCATE;
import static io.farm.core.alloc.AllocationMessageDescriptor.OBJECT_ALLOCATE_LENGTH;
import static io.farm.core.alloc.AllocationMessageDescriptor.OBJECT_FREE;

/**
 * The object allocator of one node (FaRM NSDI'14 §3.3, DESIGN §8): farm-alloc's allocators wired
 * to the cluster. It owns the node's {@link BlockAllocator}, whose regions come from the node's
 * {@link RegionAllocator} (this node their primary, replicated to the backups before use) and
 * whose reuse across size classes waits for the node's {@link ClusterEpochs}, and one
 * {@link SlabAllocator} per worker, built when the allocator is attached, before any worker can
 * use it, and used only by its worker afterwards (slab {@code t} is worker {@code t}'s).
 *
 * <p><b>Routing.</b> An object is allocated and freed by the primary of its region, on the
 * calling worker's slab there:
 * <ul>
 *   <li>without a hint, or with a hint in a region whose primary is this node, the calling
 *       worker's slab allocates here, near the hint (the hint's block, else its region, else
 *       anywhere, else a new region near the hint's, see {@link SlabAllocator});</li>
 *   <li>with a hint in a region whose primary is another node, the allocation is an RPC to that
 *       node ({@link AllocationMessageDescriptor#OBJECT_ALLOCATE}; FaRM: "the allocation is
 *       performed using an RPC to the remote server"). By the thread pairing of the message
 *       rings, worker {@code t} there serves it with its own slab, near the hint, so the object
 *       lands in the hint's block when that slab allocates from it and it has room, else in
 *       the hint's region;</li>
 *   <li>a free of an object in a region whose primary is this node runs on the calling worker's
 *       slab (it hands the slot to the slab that owns the block); a free of another node's
 *       object is an RPC to the primary ({@link AllocationMessageDescriptor#OBJECT_FREE}),
 *       served the same way.</li>
 * </ul>
 * Either way the stage completes on the calling worker.
 *
 * <p><b>Replication of the block tables.</b> Every write the block allocator makes to a region's
 * block 0 (header, block state words) is copied by one-sided writes to every backup's copy of the
 * region ({@link BlockTableReplication}); an allocation or free here completes only once the
 * table writes it caused, and those of the object's region still in flight, have completed at
 * every backup, so a block is never used before its backups know its state. If one did not (a
 * backup unreachable), the stage fails with a {@link BlockTableReplicationException} (an
 * allocation frees its object again first).
 *
 * <p><b>Bad input</b> is refused before anything changes: a size outside
 * 1 .. {@value SizeClasses#MAX_SIZE} and an address in no data region of the cluster (region 0,
 * a system region, a ring the cluster lacks) are refused at once, here, with an
 * {@link IllegalArgumentException}; so are a hint or freed address in a region of this node that
 * its allocator does not hold, and (with {@link IllegalStateException}) a free of an object that
 * is not allocated. The same refusals by the remote primary fail the stage with an
 * {@link RpcException} of reason {@link RpcException.Reason#FAILED} whose message carries the
 * primary's reason. An unreachable or silent primary fails the stage with the RPC's reason too;
 * a call that timed out may still have happened there (an object allocated then is lost to the
 * caller until recovery's scan).
 *
 * <p>Attach one to every member ({@link #attach}): each serves the others' remote allocations and frees.
 */
public final class NodeAllocator {
    /** Below this many blocks that any size class can take, the block allocator asks the epochs to advance. */
    public static final int DEFAULT_LOW_FREE_BLOCKS = 4;

    private static final String HINT = "location hint";
    private static final String FREED = "address to free";

    private final Node node;
    private final Rpc rpc;
    private final PlacementRing placement;
    private final BlockAllocator blocks;
    private final BlockTableReplication replication;
    /** Slab t is worker t's; built here, used only by its worker. */
    private final SlabAllocator[] slabs;
    private final Duration callTimeout;
    /** Argument and result staging per worker (each worker writes only its own); native. */
    private final MemorySegment[] staging;

    private NodeAllocator(Node node, Rpc rpc, RegionAllocator regions, ClusterEpochs epochs, RegionLayout layout,
                          int lowFreeBlocks) {
        this.node = node;
        this.rpc = rpc;
        this.placement = node.config().placement();
        this.blocks = new BlockAllocator(layout, regions, epochs, lowFreeBlocks);
        this.replication = new BlockTableReplication(node);
        blocks.blockTableListener(replication);
        int threads = node.config().threads();
        this.slabs = new SlabAllocator[threads];
        this.staging = new MemorySegment[threads];
        for (int w = 0; w < threads; w++) {
            slabs[w] = new SlabAllocator(blocks, w);
            staging[w] = Arena.ofAuto().allocate(OBJECT_ALLOCATE_LENGTH, Long.BYTES);
        }
        // A remote allocation may wait for a new region there, which waits up to the backup timeout.
        this.callTimeout = regions.backupTimeout().multipliedBy(2);
    }

    /**
     * The object allocator of {@code node}, with blocks of {@link RegionLayout#DEFAULT_BLOCK_SIZE}
     * and {@link #DEFAULT_LOW_FREE_BLOCKS}; see {@link #attach(Node, Rpc, RegionAllocator, ClusterEpochs, RegionLayout, int)}.
     */
    public static NodeAllocator attach(Node node, Rpc rpc, RegionAllocator regions, ClusterEpochs epochs) {
        return attach(node, rpc, regions, epochs, new RegionLayout(RegionLayout.DEFAULT_BLOCK_SIZE), DEFAULT_LOW_FREE_BLOCKS);
    }

    /**
     * The object allocator of {@code node}: builds its block allocator and one slab allocator per
     * worker, and registers the remote allocation and free methods on {@code rpc}. Attach every
     * member before any of them allocates near another's objects.
     *
     * @param rpc           the node's RPC layer
     * @param regions       the node's region allocator, where new regions come from
     * @param epochs        the node's epochs, which gate reuse across size classes
     * @param layout        how regions are cut into blocks; the cluster's region size must fit it
     * @param lowFreeBlocks below this many blocks that any class can take, ask the epochs to advance
     * @throws IllegalArgumentException if {@code rpc}, {@code regions} or {@code epochs} belong to
     *                                  another node, the cluster's regions do not fit the layout, or
     *                                  {@code lowFreeBlocks} is negative
     * @throws IllegalStateException    if the node has an object allocator attached already
     */
    public static NodeAllocator attach(Node node, Rpc rpc, RegionAllocator regions, ClusterEpochs epochs, RegionLayout layout,
                                       int lowFreeBlocks) {
        requireSameNode(node, rpc.node(), "RPC layer");
        requireSameNode(node, regions.node(), "region allocator");
        requireSameNode(node, epochs.node(), "epochs");
        layout.blockCount(node.config().regionSize());
        NodeAllocator allocator = new NodeAllocator(node, rpc, regions, epochs, layout, lowFreeBlocks);
        rpc.register(OBJECT_ALLOCATE, "object-allocate", allocator::serveAllocate);
        rpc.register(OBJECT_FREE, "object-free", allocator::serveFree);
        return allocator;
    }

    /**
     * Allocates an object of {@code size} bytes near {@code hintAddress}, by the primary of the
     * hint's region (see the class comment). Runs on {@code worker}'s thread; the stage completes
     * there with the object's address, or fails: with the region allocator's failure if a new
     * region was needed and could not be replicated, with a {@link BlockTableReplicationException}
     * if a block table write did not reach a backup, or with an {@link RpcException} if the
     * remote primary refused or could not be reached.
     *
     * @param size        object size in bytes, 1 .. {@value SizeClasses#MAX_SIZE} (1 MiB)
     * @param hintAddress the address of an object to allocate near, or {@link GlobalAddress#NULL}
     * @throws IllegalArgumentException if the size is out of range, or the hint is in no data
     *                                  region of the cluster or in a region of this node that
     *                                  its allocator does not hold; nothing changes then
     * @throws IllegalStateException    if called off {@code worker}'s thread or with another node's worker
     */
    public CompletionStage<Long> allocate(NodeWorker worker, int size, long hintAddress) {
        requireOwnWorker(worker, "allocate");
        SizeClasses.classOf(size);
        if (hintAddress == GlobalAddress.NULL) {
            return allocateHere(worker, size, GlobalAddress.NULL);
        }
        int primary = primaryOf(hintAddress, HINT);
        if (primary == node.id()) {
            return allocateHere(worker, size, hintAddress);
        }
        MemorySegment arguments = staging[worker.index()];
        AllocationMessageDescriptor.writeObjectAllocate(arguments, 0, size, hintAddress);
        return rpc.call(worker, primary, OBJECT_ALLOCATE, arguments, 0, OBJECT_ALLOCATE_LENGTH, callTimeout,
            (result, offset, length) -> allocatedBy(primary, result, offset, length));
    }

    /**
     * Frees the object at {@code address}, on the primary of its region (see the class comment):
     * its allocated bit is cleared and its incarnation incremented. Runs on {@code worker}'s
     * thread; the stage completes there once the object is free and the block table writes
     * the free caused reached the backups, or fails: with a {@link BlockTableReplicationException}
     * if one did not, with an {@link RpcException} if the remote primary refused or could not be
     * reached.
     *
     * @throws IllegalArgumentException if the address is in no data region of the cluster, or is
     *                                  not an object of this node's allocator while its region's
     *                                  primary is this node; nothing changes then
     * @throws IllegalStateException    if the object is this node's and not allocated (freed
     *                                  already, or never allocated), or if called off
     *                                  {@code worker}'s thread or with another node's worker
     */
    public CompletionStage<Void> free(NodeWorker worker, long address) {
        requireOwnWorker(worker, "free");
        int primary = primaryOf(address, FREED);
        if (primary == node.id()) {
            slabs[worker.index()].free(address);
            return replication.replicated(worker, 0, null);
        }
        MemorySegment arguments = staging[worker.index()];
        AllocationMessageDescriptor.writeAddress(arguments, 0, address);
        return rpc.call(worker, primary, OBJECT_FREE, arguments, 0, ADDRESS_LENGTH, callTimeout, NodeAllocator::freed);
    }

    /** The regions this node's allocator holds, in the order they were added. */
    public List<AllocatorRegion> regions() {
        return blocks.regions();
    }

    /** Counts of this node's allocator, for benchmarks and monitoring. */
    public AllocatorStats stats() {
        return blocks.stats();
    }

    /** How long a remote allocation or free may take before its stage fails: twice the backup timeout. */
    public Duration callTimeout() {
        return callTimeout;
    }

    /** The node this allocator allocates for. */
    public Node node() {
        return node;
    }

    /** Serves OBJECT_ALLOCATE on the receiving worker, with its own slab; answers when the object is allocated. */
    private void serveAllocate(NodeWorker worker, int sender, MemorySegment arguments, long offset, int length, RpcReply reply) {
        AllocationMessageDescriptor.requireLength("object-allocate arguments", sender, length, OBJECT_ALLOCATE_LENGTH);
        int size = AllocationMessageDescriptor.objectSize(arguments, offset);
        long hintAddress = AllocationMessageDescriptor.hintAddress(arguments, offset);
        requireRoutedHere(sender, hintAddress, HINT);
        allocateHere(worker, size, hintAddress).whenComplete((address, failure) -> {
            if (failure != null) {
                reply.fail(reasonOf(failure));
                return;
            }
            MemorySegment result = staging[worker.index()];
            AllocationMessageDescriptor.writeAddress(result, 0, address);
            reply.ok(result, 0, ADDRESS_LENGTH);
        });
    }

    /** Serves OBJECT_FREE on the receiving worker, with its own slab. */
    private void serveFree(NodeWorker worker, int sender, MemorySegment arguments, long offset, int length, RpcReply reply) {
        AllocationMessageDescriptor.requireLength("object-free arguments", sender, length, ADDRESS_LENGTH);
        long address = AllocationMessageDescriptor.address(arguments, offset);
        requireRoutedHere(sender, address, FREED);
        slabs[worker.index()].free(address);
        replication.replicated(worker, 0, null).whenComplete((ignored, failure) -> {
            if (failure != null) {
                reply.fail(reasonOf(failure));
            } else {
                reply.ok();
            }
        });
    }

    /**
     * Allocates on {@code worker}'s slab, here, and completes once the block table writes this
     * caused, and those of the object's region still in flight, reached the backups
     * ({@link BlockTableReplication}). If they did not, the object is freed again and the stage
     * fails with the {@link BlockTableReplicationException}.
     */
    private CompletionStage<Long> allocateHere(NodeWorker worker, int size, long hintAddress) {
        SlabAllocator slab = slabs[worker.index()];
        return slab.allocate(size, hintAddress).thenCompose(address ->
            replication.replicated(worker, GlobalAddress.regionId(address), address).exceptionallyCompose(failure -> {
                slab.free(address);
                return CompletableFuture.failedFuture(failure);
            }));
    }

    /** Decodes the answer of {@code primary} to OBJECT_ALLOCATE: an address in one of its regions. */
    private long allocatedBy(int primary, MemorySegment result, long offset, int length) {
        if (length != ADDRESS_LENGTH) {
            throw new IllegalArgumentException(length + " bytes, expected " + ADDRESS_LENGTH);
        }
        long address = AllocationMessageDescriptor.address(result, offset);
        int regionId = GlobalAddress.regionId(address);
        if (!placement.isDataRegion(regionId) || placement.primary(regionId) != primary) {
            throw new IllegalArgumentException("address " + GlobalAddress.toString(address)
                + " is not in a data region whose primary is node " + primary);
        }
        return address;
    }

    private static Void freed(MemorySegment result, long offset, int length) {
        if (length != 0) {
            throw new IllegalArgumentException(length + " bytes, expected none");
        }
        return null;
    }

    /**
     * The primary of the region of {@code address}.
     *
     * @throws IllegalArgumentException if the address is in no data region of this cluster
     */
    private int primaryOf(long address, String role) {
        int regionId = GlobalAddress.regionId(address);
        if (!placement.isDataRegion(regionId)) {
            throw new IllegalArgumentException(role + " " + GlobalAddress.toString(address) + " is not an object address: "
                + (regionId == 0 ? "region 0 is never allocated (address 0 is the null address)"
                : "region " + RegionId.toString(regionId) + " is no data region of cluster " + node.config().name())
                + "; objects live in data regions, on rings 0.." + (placement.rings() - 1));
        }
        return placement.primary(regionId);
    }

    /** Checks that a remote request names an address of a region whose primary is this node. */
    private void requireRoutedHere(int sender, long address, String role) {
        int primary = primaryOf(address, role);
        if (primary != node.id()) {
            throw new IllegalArgumentException("node " + sender + " sent " + role + " " + GlobalAddress.toString(address)
                + " to node " + node.id() + ", but its region " + RegionId.toString(GlobalAddress.regionId(address))
                + " has node " + primary + " as primary: objects are allocated and freed by their region's primary");
        }
    }

    private void requireOwnWorker(NodeWorker worker, String operation) {
        if (worker.node() != node) {
            throw new IllegalStateException("object " + operation + " on node " + node.id() + " with a worker of node "
                + worker.node().id() + ": use that node's allocator");
        }
        if (!worker.worker().inWorkerThread()) {
            throw new IllegalStateException("object " + operation + " must run on the thread of worker " + worker.worker().name()
                + ", not on " + Thread.currentThread().getName() + ": submit it to the worker (Node.submit)");
        }
    }

    private static void requireSameNode(Node node, Node other, String what) {
        if (other != node) {
            throw new IllegalArgumentException("the " + what + " of node " + other.id() + " cannot serve the allocator of node "
                + node.id());
        }
    }

    private static String reasonOf(Throwable failure) {
        Throwable cause = failure instanceof CompletionException wrapped && wrapped.getCause() != null ? wrapped.getCause() : failure;
        return cause.getMessage() != null ? cause.getMessage() : cause.toString();
    }
}
