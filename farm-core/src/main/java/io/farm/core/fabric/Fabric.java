package io.farm.core.fabric;

import io.farm.core.region.Region;

/**
 * The only way a node touches another node's memory: the NIC (DESIGN §4). One instance per
 * node. Implementations: {@code local} (all nodes in one JVM) and {@code shm} (one process
 * per node on one host, region files mapped by every process); later {@code tcp} and
 * {@code rdma}.
 *
 * <p>Contract (checked by the conformance suite on every fabric):
 * <ol>
 *   <li>write order: when the last 8-byte word of a write is visible, every earlier byte is;</li>
 *   <li>cache-line consistent reads under the line-version protocol;</li>
 *   <li>no target CPU for one-sided operations;</li>
 *   <li>accounting of operations and bytes by kind.</li>
 * </ol>
 */
public interface Fabric extends AutoCloseable {
    /** The fabric's name: {@code local}, {@code shm}, ... */
    String kind();

    /** The node this instance belongs to. */
    int nodeId();

    /**
     * Registers a local region for remote access and returns its capability, with a fresh key.
     *
     * @throws IllegalStateException if a region with that id is registered already
     */
    Capability register(Region region);

    /** Withdraws a registration; capabilities issued for it are refused from now on. */
    void deregister(int regionId);

    /**
     * The capability of region {@code regionId} of node {@code node}, fetched from that node
     * once (the caller caches it).
     *
     * @throws UnregisteredRegionException if the node has no such region registered
     * @throws PeerUnreachableException    if the node is dead or unknown
     */
    Capability capability(int node, int regionId);

    /** Whether the fabric currently believes {@code node} is alive and connected. */
    boolean isReachable(int node);

    /** Opens the port of one worker thread; the port is confined to the calling thread. */
    FabricPort openPort();

    /** The counts of every port this node opened, summed (closed ports included). */
    FabricStats stats();

    /** Deregisters everything and closes every port; peers see this node as unreachable. */
    @Override
    void close();
}
