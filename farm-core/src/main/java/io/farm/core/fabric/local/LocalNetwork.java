package io.farm.core.fabric.local;

import io.farm.core.fabric.PeerUnreachableException;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The "switch" that connects the local fabrics of all nodes running in one JVM. Create one per
 * embedded cluster and {@link #attach(int)} one fabric per node.
 */
public final class LocalNetwork {
    private final ConcurrentHashMap<Integer, LocalFabric> nodes = new ConcurrentHashMap<>();

    /**
     * Attaches node {@code nodeId} and returns its fabric.
     *
     * @throws IllegalStateException if that node is attached already
     */
    public LocalFabric attach(int nodeId) {
        if (nodeId < 0) {
            throw new IllegalArgumentException("node id " + nodeId + " is negative");
        }
        LocalFabric fabric = new LocalFabric(this, nodeId);
        if (nodes.putIfAbsent(nodeId, fabric) != null) {
            throw new IllegalStateException("node " + nodeId + " is attached to this local network already");
        }
        return fabric;
    }

    /** The live fabric of {@code nodeId}. */
    LocalFabric peer(int nodeId) {
        LocalFabric fabric = nodes.get(nodeId);
        if (fabric == null || fabric.isClosed()) {
            throw new PeerUnreachableException("node " + nodeId + " is not attached to this local network or has stopped");
        }
        return fabric;
    }

    boolean isAttached(int nodeId) {
        LocalFabric fabric = nodes.get(nodeId);
        return fabric != null && !fabric.isClosed();
    }

    void detach(LocalFabric fabric) {
        nodes.remove(fabric.nodeId(), fabric);
    }
}
