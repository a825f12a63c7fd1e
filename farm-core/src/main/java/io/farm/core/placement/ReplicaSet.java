package io.farm.core.placement;

import java.util.Arrays;

/**
 * The machines that store one region, primary first, then the backups in ring order.
 * Immutable; two sets are equal when they hold the same nodes in the same order.
 */
public final class ReplicaSet {
    private final int[] nodes;

    private ReplicaSet(int[] nodes) {
        this.nodes = nodes;
    }

    /** Wraps an array the caller will never touch again; the nodes are distinct by construction. */
    static ReplicaSet wrap(int[] nodes) {
        return new ReplicaSet(nodes);
    }

    /**
     * A replica set of the given node ids, primary first.
     *
     * @throws IllegalArgumentException if {@code nodes} is empty, has a negative id or repeats a node
     */
    public static ReplicaSet of(int... nodes) {
        if (nodes.length == 0) {
            throw new IllegalArgumentException("a replica set needs at least one node (its primary)");
        }
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] < 0) {
                throw new IllegalArgumentException("node id " + nodes[i] + " is negative: node ids are >= 0");
            }
            for (int j = 0; j < i; j++) {
                if (nodes[j] == nodes[i]) {
                    throw new IllegalArgumentException("node " + nodes[i] + " appears twice in " + Arrays.toString(nodes)
                        + ": a region has one copy per machine");
                }
            }
        }
        return new ReplicaSet(nodes.clone());
    }

    /** Number of copies of the region (f + 1). */
    public int size() {
        return nodes.length;
    }

    /** The node holding the primary copy. */
    public int primary() {
        return nodes[0];
    }

    /**
     * The node at {@code index}: 0 is the primary, 1 .. size() - 1 are the backups.
     *
     * @throws IndexOutOfBoundsException if {@code index} is not in 0 .. size() - 1
     */
    public int node(int index) {
        return nodes[index];
    }

    /** Whether {@code nodeId} holds a copy (primary or backup). */
    public boolean contains(int nodeId) {
        return indexOf(nodeId) >= 0;
    }

    /** The index of {@code nodeId} in this set (0 for the primary), or -1 if it holds no copy. */
    public int indexOf(int nodeId) {
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] == nodeId) {
                return i;
            }
        }
        return -1;
    }

    /** The node ids, primary first, in a new array. */
    public int[] toArray() {
        return nodes.clone();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ReplicaSet that && Arrays.equals(nodes, that.nodes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(nodes);
    }

    @Override
    public String toString() {
        return Arrays.toString(nodes);
    }
}
