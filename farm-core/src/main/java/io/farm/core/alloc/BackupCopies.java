package io.farm.core.alloc;

import io.farm.core.addr.RegionId;
import io.farm.core.cluster.Node;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.placement.ReplicaSet;
import io.farm.core.rpc.Rpc;
import io.farm.core.rpc.RpcReply;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.farm.core.alloc.AllocationMessageDescriptor.REGION_CREATE_LENGTH;
import static io.farm.core.alloc.AllocationMessageDescriptor.REGION_LENGTH;

/**
 * A node's side of other nodes' region allocations: the RPC methods
 * {@link AllocationMessageDescriptor#REGION_CREATE} (create, map and register this node's backup
 * copy of a new region: its own zero-filled file of the same size) and
 * {@link AllocationMessageDescriptor#REGION_RELEASE} (delete the copy of an allocation that
 * failed). Both check that the caller is the region's primary and this node one of its backups.
 */
final class BackupCopies {
    private final Node node;
    /** Result staging per worker (each worker writes only its own); native. */
    private final MemorySegment[] results;

    private BackupCopies(Node node) {
        this.node = node;
        this.results = new MemorySegment[node.config().threads()];
        for (int i = 0; i < results.length; i++) {
            results[i] = Arena.ofAuto().allocate(REGION_LENGTH, Long.BYTES);
        }
    }

    /** Registers both methods on {@code rpc}. */
    static void serve(Rpc rpc) {
        BackupCopies copies = new BackupCopies(rpc.node());
        rpc.register(AllocationMessageDescriptor.REGION_CREATE, "region-create", copies::create);
        rpc.register(AllocationMessageDescriptor.REGION_RELEASE, "region-release", copies::release);
    }

    private void create(NodeWorker worker, int sender, MemorySegment arguments, long offset, int length, RpcReply reply) {
        AllocationMessageDescriptor.requireLength("region-create arguments", sender, length, REGION_CREATE_LENGTH);
        int regionId = AllocationMessageDescriptor.region(arguments, offset);
        long size = AllocationMessageDescriptor.size(arguments, offset);
        requireBackupOf(sender, regionId);
        if (size != node.config().regionSize()) {
            throw new IllegalArgumentException("node " + sender + " asked node " + node.id() + " for a copy of region "
                + RegionId.toString(regionId) + " of " + size + " bytes; this cluster's regions have "
                + node.config().regionSize() + " bytes");
        }
        if (node.region(regionId) != null) {
            throw new IllegalStateException("node " + node.id() + " holds region " + RegionId.toString(regionId)
                + " already: it cannot create a second copy");
        }
        node.createRegion(regionId, size);
        answer(worker, reply, regionId, 0);
    }

    private void release(NodeWorker worker, int sender, MemorySegment arguments, long offset, int length, RpcReply reply) {
        AllocationMessageDescriptor.requireLength("region-release arguments", sender, length, REGION_LENGTH);
        int regionId = AllocationMessageDescriptor.region(arguments, offset);
        requireBackupOf(sender, regionId);
        boolean held = node.region(regionId) != null;
        if (held) {
            node.deleteRegion(regionId);
        }
        answer(worker, reply, regionId, held ? 1 : 0);
    }

    private void requireBackupOf(int sender, int regionId) {
        if (RegionId.isSystem(regionId) || RegionId.ring(regionId) >= node.config().rings()) {
            throw new IllegalArgumentException("node " + sender + " named region " + RegionId.toString(regionId)
                + ", which is no data region of this cluster (rings 0.." + (node.config().rings() - 1) + ")");
        }
        ReplicaSet replicas = node.config().placement().replicas(regionId);
        if (replicas.primary() != sender) {
            throw new IllegalArgumentException("node " + sender + " is not the primary of region " + RegionId.toString(regionId)
                + " (its replicas are " + replicas + ")");
        }
        if (replicas.indexOf(node.id()) < 1) {
            throw new IllegalArgumentException("node " + node.id() + " is not a backup of region " + RegionId.toString(regionId)
                + " (its replicas are " + replicas + ")");
        }
    }

    private void answer(NodeWorker worker, RpcReply reply, int regionId, int second) {
        MemorySegment result = results[worker.index()];
        AllocationMessageDescriptor.writeRegion(result, 0, regionId, second);
        reply.ok(result, 0, REGION_LENGTH);
    }
}
