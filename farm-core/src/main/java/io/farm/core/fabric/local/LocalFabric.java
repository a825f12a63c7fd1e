package io.farm.core.fabric.local;

import io.farm.core.addr.RegionId;
import io.farm.core.fabric.Capability;
import io.farm.core.fabric.EmulatedPort;
import io.farm.core.fabric.Fabric;
import io.farm.core.fabric.FabricAccounting;
import io.farm.core.fabric.FabricCounters;
import io.farm.core.fabric.FabricPort;
import io.farm.core.fabric.FabricStats;
import io.farm.core.fabric.InvalidCapabilityException;
import io.farm.core.fabric.UnregisteredRegionException;
import io.farm.core.region.Region;
import org.agrona.collections.Long2ObjectHashMap;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The fabric of one node of an embedded cluster: every node lives in this JVM, so a
 * one-sided operation is a copy by the issuing thread straight from or into the target's
 * mapped region, with {@link io.farm.core.fabric.DmaEmulation}'s ordering.
 */
public final class LocalFabric implements Fabric {
    private static final AtomicLong KEYS = new AtomicLong(System.nanoTime() & 0xFFFF_FFFFL);

    private final LocalNetwork network;
    private final int nodeId;
    private final ConcurrentHashMap<Integer, Registration> registrations = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Registration> byKey = new ConcurrentHashMap<>();
    private final FabricAccounting accounting = new FabricAccounting();
    private volatile boolean closed;

    LocalFabric(LocalNetwork network, int nodeId) {
        this.network = network;
        this.nodeId = nodeId;
    }

    /** A registered region; {@code valid} turns false on deregistration. */
    private static final class Registration {
        final LocalFabric owner;
        final Capability capability;
        final MemorySegment memory;
        volatile boolean valid = true;

        Registration(LocalFabric owner, Capability capability, MemorySegment memory) {
            this.owner = owner;
            this.capability = capability;
            this.memory = memory;
        }
    }

    @Override
    public String kind() {
        return "local";
    }

    @Override
    public int nodeId() {
        return nodeId;
    }

    @Override
    public Capability register(Region region) {
        requireOpen();
        Capability capability = new Capability(nodeId, region.id(), KEYS.incrementAndGet(), region.size());
        Registration registration = new Registration(this, capability, region.memory());
        if (registrations.putIfAbsent(region.id(), registration) != null) {
            throw new IllegalStateException("region " + RegionId.toString(region.id()) + " is registered on node " + nodeId + " already");
        }
        byKey.put(capability.key(), registration);
        return capability;
    }

    @Override
    public void deregister(int regionId) {
        Registration registration = registrations.remove(regionId);
        if (registration == null) {
            throw new UnregisteredRegionException("region " + RegionId.toString(regionId) + " is not registered on node " + nodeId);
        }
        registration.valid = false;
        byKey.remove(registration.capability.key());
    }

    @Override
    public Capability capability(int node, int regionId) {
        LocalFabric peer = network.peer(node);
        Registration registration = peer.registrations.get(regionId);
        if (registration == null) {
            throw new UnregisteredRegionException("node " + node + " has no region " + RegionId.toString(regionId) + " registered");
        }
        return registration.capability;
    }

    @Override
    public boolean isReachable(int node) {
        return network.isAttached(node);
    }

    @Override
    public FabricPort openPort() {
        requireOpen();
        return new Port(accounting.newPort());
    }

    @Override
    public FabricStats stats() {
        return accounting.total();
    }

    @Override
    public void close() {
        closed = true;
        for (Registration registration : registrations.values()) {
            registration.valid = false;
        }
        registrations.clear();
        byKey.clear();
        network.detach(this);
    }

    boolean isClosed() {
        return closed;
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("local fabric of node " + nodeId + " is closed");
        }
    }

    /** A worker's port; caches the target's registration per key, as a NIC caches translations. */
    private final class Port extends EmulatedPort {
        private final Long2ObjectHashMap<Registration> cache = new Long2ObjectHashMap<>();
        private Capability lastCapability;
        private Registration lastRegistration;

        Port(FabricCounters counters) {
            super(counters);
        }

        @Override
        protected MemorySegment resolve(Capability target) {
            // Closing the fabric closes its ports (Fabric#close).
            requireOpen();
            // Fast path: the registration this capability resolved to before (a worker mostly
            // repeats its last one), still valid, its owner still up.
            Registration registration = target == lastCapability ? lastRegistration : cache.get(target.key());
            if (registration != null && registration.valid && !registration.owner.closed
                && (registration.capability == target || registration.capability.equals(target))) {
                lastCapability = target;
                lastRegistration = registration;
                return registration.memory;
            }
            lastCapability = null;
            lastRegistration = null;
            cache.remove(target.key());
            LocalFabric peer = network.peer(target.node());
            registration = peer.byKey.get(target.key());
            if (registration == null || !registration.valid || !registration.capability.equals(target)) {
                throw refused(peer, target);
            }
            cache.put(target.key(), registration);
            return registration.memory;
        }

        private RuntimeException refused(LocalFabric peer, Capability target) {
            if (!peer.registrations.containsKey(target.regionId())) {
                return new UnregisteredRegionException("node " + target.node() + " has no region "
                    + RegionId.toString(target.regionId()) + " registered: " + target + " refused");
            }
            return new InvalidCapabilityException(target + " does not match node " + target.node()
                + "'s current registration (stale or forged key); fetch the capability again");
        }
    }
}
