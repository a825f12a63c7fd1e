package io.farm.core.placement;

import io.farm.core.addr.RegionId;

/**
 * A machine of the cluster as the placement sees it: its node id and the stable name whose
 * hashes place it on the virtual rings (FaRM hashes each machine's address). The name must not
 * change while the node is a member, or every region it holds would move.
 *
 * @param nodeId the node id, 0 .. {@value RegionId#MAX_NODE} (system region ids carry it in 16 bits)
 * @param name   the stable, non-empty name hashed onto the rings, e.g. {@code "node-3"} or {@code host:port}
 */
public record Member(int nodeId, String name) {
    /**
     * Checks the node id and name.
     *
     * @throws IllegalArgumentException if the node id is out of range or the name is null or empty
     */
    public Member {
        if (nodeId < 0 || nodeId > RegionId.MAX_NODE) {
            throw new IllegalArgumentException("node id " + nodeId + " out of range: 0.." + RegionId.MAX_NODE);
        }
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("member " + nodeId + " needs a non-empty name to hash onto the rings");
        }
    }
}
