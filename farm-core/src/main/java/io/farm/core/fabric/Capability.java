package io.farm.core.fabric;

import io.farm.core.addr.RegionId;

/**
 * What a node needs to access a registered region of another node with one-sided operations,
 * the analog of an RDMA region key (FaRM NSDI'14 §2, §3.3). Obtained once from
 * {@link Fabric#capability(int, int)} and cached by the caller; the target checks {@code key}
 * on every operation, so a capability from an earlier registration is refused.
 *
 * @param node     the node that holds the region
 * @param regionId the region id
 * @param key      the registration key, fresh for every registration
 * @param size     the registered size in bytes
 */
public record Capability(int node, int regionId, long key, long size) {
    @Override
    public String toString() {
        return "Capability[node " + node + ", " + RegionId.toString(regionId) + ", key " + Long.toHexString(key)
            + ", " + size + " bytes]";
    }
}
