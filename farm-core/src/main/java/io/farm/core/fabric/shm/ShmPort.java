package io.farm.core.fabric.shm;

import io.farm.core.addr.RegionId;
import io.farm.core.fabric.Capability;
import io.farm.core.fabric.EmulatedPort;
import io.farm.core.fabric.FabricCounters;
import io.farm.core.fabric.InvalidCapabilityException;
import io.farm.core.fabric.PeerUnreachableException;
import io.farm.core.fabric.UnregisteredRegionException;
import org.agrona.collections.Long2ObjectHashMap;

import java.lang.foreign.MemorySegment;

/**
 * A worker's port of the shm fabric. It caches, per capability key, what a NIC caches per
 * remote key: the peer's view, the table entry and the mapped region. The fast path of every
 * operation is one volatile load (the peer is reachable) and one acquire load of the entry's
 * key in the peer's table; anything else goes through {@link #resolveSlowly(Capability)}.
 */
final class ShmPort extends EmulatedPort {
    private final ShmFabric fabric;
    private final Long2ObjectHashMap<Target> targets = new Long2ObjectHashMap<>();
    private Capability lastCapability;
    private Target lastTarget;

    ShmPort(ShmFabric fabric, FabricCounters counters) {
        super(counters);
        this.fabric = fabric;
    }

    /** A resolved capability. */
    private record Target(Capability capability, Peer.View view, int slot, MemorySegment memory) {
    }

    @Override
    protected MemorySegment resolve(Capability capability) {
        fabric.requireOpen();
        // A worker mostly repeats its last capability: check it before hashing the key.
        Target target = capability == lastCapability ? lastTarget : targets.get(capability.key());
        if (target != null && target.view.isReachable()
            && (target.capability == capability || target.capability.equals(capability))
            && target.view.table.keyAt(target.slot) == capability.key()) {
            lastCapability = capability;
            lastTarget = target;
            return target.memory;
        }
        return resolveSlowly(capability);
    }

    private MemorySegment resolveSlowly(Capability capability) {
        lastCapability = null;
        lastTarget = null;
        targets.remove(capability.key());
        Peer peer = fabric.peer(capability.node());
        Peer.View view = peer.refresh();
        if (view == null || !view.isReachable()) {
            throw new PeerUnreachableException(peer.unreachableReason() + ": " + capability + " not accessed");
        }
        int slot = view.table.slotOf(capability);
        if (slot < 0) {
            throw refused(view, capability);
        }
        MemorySegment memory = peer.regionMemory(capability.regionId(), capability.size());
        targets.put(capability.key(), new Target(capability, view, slot, memory));
        return memory;
    }

    private static RuntimeException refused(Peer.View view, Capability capability) {
        int node = capability.node();
        String region = RegionId.toString(capability.regionId());
        Capability current = view.table.lookup(node, capability.regionId());
        if (current == null) {
            return new UnregisteredRegionException("node " + node + " has no region " + region
                + " registered (deregistered, never registered, or not yet registered since a restart): " + capability + " refused");
        }
        String why = CapabilityTableLayout.isKeyOf(capability.key(), view.table.incarnation())
            ? "its key was withdrawn, or the capability was altered"
            : "its key is not of node " + node + "'s current incarnation (the node restarted, or the key was forged)";
        return new InvalidCapabilityException(capability + " does not match node " + node + "'s current registration of "
            + region + ": " + why + "; fetch the capability again");
    }
}
