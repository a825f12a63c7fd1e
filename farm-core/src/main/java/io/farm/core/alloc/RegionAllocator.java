package io.farm.core.alloc;

import io.farm.alloc.AllocatorRegion;
import io.farm.alloc.RegionSource;
import io.farm.core.addr.RegionId;
import io.farm.core.cluster.Node;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.config.ClusterConfig;
import io.farm.core.node.Worker;
import io.farm.core.placement.PlacementRing;
import io.farm.core.placement.ReplicaSet;
import io.farm.core.region.Region;
import io.farm.core.rpc.Rpc;
import io.farm.core.rpc.RpcException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

import static io.farm.core.alloc.AllocationMessageDescriptor.REGION_CREATE_LENGTH;
import static io.farm.core.alloc.AllocationMessageDescriptor.REGION_LENGTH;

/**
 * A node's region allocator (FaRM NSDI'14 §3.3, DESIGN §8), the {@link RegionSource} of its
 * block allocator. {@link #newRegion(int)}
 * <ol>
 *   <li>picks a region id whose position makes this node the primary: without a hint a random
 *       ring and position ({@link PlacementRing#regionIdWithPrimary}); with one, the nearest such
 *       position on the hint's ring ({@link PlacementRing#nearbyRegionIdWithPrimary}), or a random
 *       one if this node is primary for no free position there. Never region 0, never an id this
 *       node chose before (in this run, failed allocations included);</li>
 *   <li>creates, maps and registers the region on this node (a new sparse file, zero);</li>
 *   <li>replicates the allocation: asks each backup ({@link PlacementRing#replicas} after the
 *       primary) over {@link Rpc} to create, map and register its own copy, a zero-filled file of
 *       the same size in its own directory ({@link AllocationMessageDescriptor#REGION_CREATE});</li>
 *   <li>completes the stage, on the calling worker, once every backup acknowledged: a region is
 *       never used before its backups know it. With no backups (f = 0) the stage is complete when
 *       the local region is.</li>
 * </ol>
 * If a backup is unreachable, refuses, or does not answer within the backup timeout, the stage
 * fails with a {@link RegionAllocationException} naming every failed backup once all have
 * answered or timed out; the region is not used: the local copy is deleted, and the backups that
 * acknowledged or did not answer are asked to drop theirs ({@link AllocationMessageDescriptor#REGION_RELEASE},
 * best effort: it follows the creation request on the same ring, so a late creation is undone
 * too). Its id is not chosen again.
 *
 * <p>Attach one to every node with {@link #attach}: each node serves its peers' backup requests
 * through it.
 */
public final class RegionAllocator implements RegionSource {
    /** How long a backup has to acknowledge its copy, unless set at {@link #attach(Node, Rpc, Duration)}. */
    public static final Duration DEFAULT_BACKUP_TIMEOUT = Duration.ofSeconds(10);

    private final Node node;
    private final Rpc rpc;
    private final PlacementRing placement;
    private final Duration backupTimeout;
    /** Every id this node chose as primary in this run; an id is added before its region is created. */
    private final Set<Integer> chosen = ConcurrentHashMap.newKeySet();
    /** Argument staging per worker (each worker writes only its own); native. */
    private final MemorySegment[] arguments;

    private RegionAllocator(Node node, Rpc rpc, Duration backupTimeout) {
        this.node = node;
        this.rpc = rpc;
        this.placement = node.config().placement();
        this.backupTimeout = backupTimeout;
        this.arguments = new MemorySegment[node.config().threads()];
        for (int i = 0; i < arguments.length; i++) {
            arguments[i] = Arena.ofAuto().allocate(REGION_CREATE_LENGTH, Long.BYTES);
        }
    }

    /**
     * The region allocator of {@code rpc}'s node, with the {@link #DEFAULT_BACKUP_TIMEOUT}; also
     * makes the node serve its peers' backup requests.
     *
     * @throws IllegalStateException if the node has a region allocator attached already
     */
    public static RegionAllocator attach(Node node, Rpc rpc) {
        return attach(node, rpc, DEFAULT_BACKUP_TIMEOUT);
    }

    /**
     * The region allocator of {@code node}, whose backups have {@code backupTimeout} to
     * acknowledge a new region; also makes the node serve its peers' backup requests.
     *
     * @param rpc the node's RPC layer
     * @throws IllegalArgumentException if {@code rpc} is another node's or the timeout is not positive
     * @throws IllegalStateException    if the node has a region allocator attached already
     */
    public static RegionAllocator attach(Node node, Rpc rpc, Duration backupTimeout) {
        if (rpc.node() != node) {
            throw new IllegalArgumentException("the RPC layer of node " + rpc.node().id() + " cannot serve node " + node.id());
        }
        if (backupTimeout == null || backupTimeout.isNegative() || backupTimeout.isZero()) {
            throw new IllegalArgumentException("backup timeout " + backupTimeout + " is not accepted: it must be positive");
        }
        RegionAllocator allocator = new RegionAllocator(node, rpc, backupTimeout);
        BackupCopies.serve(rpc);
        return allocator;
    }

    /**
     * Allocates a new region with this node as primary, near {@code hintRegionId} unless it is
     * {@link #NO_HINT}, replicated to its backups before the stage completes (see the class
     * comment). Must be called on a worker of this node; the stage completes on that worker.
     *
     * @throws IllegalArgumentException if the hint is a system region or names a ring this cluster lacks
     * @throws IllegalStateException    if called off this node's workers, or if this node is
     *                                  primary for no region at all
     */
    @Override
    public CompletionStage<AllocatorRegion> newRegion(int hintRegionId) {
        NodeWorker worker = callingWorker();
        int limit = node.config().nodeRegions();
        if (limit > 0 && chosen.size() >= limit) {
            return CompletableFuture.failedFuture(new RegionAllocationException(0, "node " + node.id() + " is full: it holds "
                + chosen.size() + " data regions of " + node.config().regionSize() + " bytes, its limit ("
                + ClusterConfig.NODE_REGIONS + " = " + limit + ")", null));
        }
        int regionId = choose(hintRegionId);
        Region region;
        try {
            region = node.createRegion(regionId, node.config().regionSize());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new RegionAllocationException(regionId, "node " + node.id()
                + " could not create region " + RegionId.toString(regionId) + ": " + e.getMessage(), e));
        }
        ReplicaSet replicas = placement.replicas(regionId);
        if (replicas.size() == 1) {
            return CompletableFuture.completedFuture(new AllocatorRegion(regionId, region.memory()));
        }
        return new Replication(worker, region, replicas).start();
    }

    /** The node this region allocator allocates for. */
    public Node node() {
        return node;
    }

    /** The backups' time to acknowledge a new region. */
    public Duration backupTimeout() {
        return backupTimeout;
    }

    private NodeWorker callingWorker() {
        Worker current = Worker.current();
        if (current == null || current.index() >= node.config().threads() || node.workers().worker(current.index()) != current) {
            throw new IllegalStateException("a region of node " + node.id() + " must be allocated on one of its workers, not on "
                + Thread.currentThread().getName() + ": submit the allocation to the node (Node.submit)");
        }
        return node.worker(current.index());
    }

    private int choose(int hintRegionId) {
        while (true) {
            int regionId = hintRegionId == NO_HINT ? 0
                : placement.nearbyRegionIdWithPrimary(node.id(), hintRegionId, chosen::contains);
            if (regionId == 0) {
                regionId = placement.regionIdWithPrimary(node.id(), ThreadLocalRandom.current());
            }
            // Another worker may take the same id first; then the next nearest (or another random one) is tried.
            if (chosen.add(regionId)) {
                return regionId;
            }
        }
    }

    /** One allocation waiting for its backups; confined to the calling worker. */
    private final class Replication {
        private final NodeWorker worker;
        private final Region region;
        private final ReplicaSet replicas;
        private final Throwable[] failures;
        private final CompletableFuture<AllocatorRegion> result = new CompletableFuture<>();
        private int waiting;

        Replication(NodeWorker worker, Region region, ReplicaSet replicas) {
            this.worker = worker;
            this.region = region;
            this.replicas = replicas;
            this.failures = new Throwable[replicas.size()];
        }

        CompletableFuture<AllocatorRegion> start() {
            waiting = replicas.size() - 1;
            MemorySegment args = arguments[worker.index()];
            AllocationMessageDescriptor.writeRegionCreate(args, 0, region.id(), region.size());
            for (int i = 1; i < replicas.size(); i++) {
                int index = i;
                int backup = replicas.node(i);
                rpc.call(worker, backup, AllocationMessageDescriptor.REGION_CREATE, args, 0, REGION_CREATE_LENGTH, backupTimeout,
                        this::acknowledged)
                    .whenComplete((regionId, failure) -> answered(index, failure));
            }
            return result;
        }

        /** Decodes a backup's acknowledgement: it must name this region. */
        private Integer acknowledged(MemorySegment body, long offset, int length) {
            if (length != REGION_LENGTH) {
                throw new IllegalArgumentException(length + " bytes, expected " + REGION_LENGTH);
            }
            int regionId = AllocationMessageDescriptor.region(body, offset);
            if (regionId != region.id()) {
                throw new IllegalArgumentException("it acknowledges region " + RegionId.toString(regionId) + ", not "
                    + RegionId.toString(region.id()));
            }
            return regionId;
        }

        private void answered(int index, Throwable failure) {
            failures[index] = failure instanceof CompletionException wrapped && wrapped.getCause() != null ? wrapped.getCause() : failure;
            if (--waiting > 0) {
                return;
            }
            RegionAllocationException failed = null;
            for (int i = 1; i < replicas.size(); i++) {
                if (failures[i] != null) {
                    if (failed == null) {
                        failed = new RegionAllocationException(region.id(), "region " + RegionId.toString(region.id())
                            + " of node " + node.id() + " was not replicated to " + BackupFailures.describe(replicas, failures) + "; it is not used",
                            failures[i]);
                    } else {
                        failed.addSuppressed(failures[i]);
                    }
                }
            }
            if (failed == null) {
                result.complete(new AllocatorRegion(region.id(), region.memory()));
                return;
            }
            abandon(failed);
            result.completeExceptionally(failed);
        }

        /** Deletes the local copy and asks every backup that may hold a copy to drop it. */
        private void abandon(RegionAllocationException failed) {
            try {
                node.deleteRegion(region.id());
            } catch (RuntimeException e) {
                failed.addSuppressed(e);
            }
            MemorySegment args = arguments[worker.index()];
            AllocationMessageDescriptor.writeRegion(args, 0, region.id(), 0);
            for (int i = 1; i < replicas.size(); i++) {
                if (mayHoldCopy(failures[i])) {
                    // Best effort: the allocation has failed either way; a lost release leaves an unused copy.
                    rpc.call(worker, replicas.node(i), AllocationMessageDescriptor.REGION_RELEASE, args, 0, REGION_LENGTH,
                        backupTimeout, (body, offset, length) -> length);
                }
            }
        }

        /** Whether a backup with this outcome may have created its copy: it did, or its answer is unknown. */
        private static boolean mayHoldCopy(Throwable failure) {
            if (failure == null) {
                return true;
            }
            return failure instanceof RpcException rpcFailure
                && (rpcFailure.reason() == RpcException.Reason.TIMEOUT || rpcFailure.reason() == RpcException.Reason.MALFORMED_RESPONSE);
        }
    }
}
