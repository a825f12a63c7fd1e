package io.farm.core;

import io.farm.core.alloc.ClusterEpochs;
import io.farm.core.alloc.NodeAllocator;
import io.farm.core.alloc.RegionAllocator;
import io.farm.core.cluster.Node;
import io.farm.core.object.LockFreeReads;
import io.farm.core.rpc.Rpc;
import io.farm.core.ship.FunctionShipping;
import io.farm.core.tx.Transactions;

import java.util.List;

/**
 * One node's FaRM, every service an application uses, attached in the order they depend on each
 * other: RPCs, the region allocator, the reclamation epochs, the object allocator, lock-free
 * reads, transactions and function shipping (FaRM NSDI'14 Fig. 6). Attach one to every member
 * of a cluster ({@link #attachAll}) before any of them allocates, commits or ships a function.
 */
public final class Farm {
    private final Node node;
    private final Rpc rpc;
    private final RegionAllocator regions;
    private final ClusterEpochs epochs;
    private final NodeAllocator allocator;
    private final LockFreeReads reads;
    private final Transactions transactions;
    private final FunctionShipping shipping;

    private Farm(Node node) {
        this.node = node;
        this.rpc = Rpc.attach(node);
        this.regions = RegionAllocator.attach(node, rpc);
        this.epochs = ClusterEpochs.attach(node);
        this.allocator = NodeAllocator.attach(node, rpc, regions, epochs);
        this.reads = new LockFreeReads(node, epochs);
        this.transactions = Transactions.attach(reads, allocator);
        this.shipping = FunctionShipping.attach(node, rpc);
    }

    /**
     * Attaches every service to {@code node}.
     *
     * @throws IllegalStateException if a service is attached to the node already
     */
    public static Farm attach(Node node) {
        return new Farm(node);
    }

    /** Attaches every service to each of {@code nodes}, in order; returns them by position. */
    public static List<Farm> attachAll(List<Node> nodes) {
        return nodes.stream().map(Farm::attach).toList();
    }

    /** The node. */
    public Node node() {
        return node;
    }

    /** Its RPC layer. */
    public Rpc rpc() {
        return rpc;
    }

    /** Its region allocator. */
    public RegionAllocator regions() {
        return regions;
    }

    /** Its reclamation epochs. */
    public ClusterEpochs epochs() {
        return epochs;
    }

    /** Its object allocator (allocations outside transactions). */
    public NodeAllocator allocator() {
        return allocator;
    }

    /** Lock-free reads ({@code lockFreeStart}, {@code lockFreeRead}, {@code lockFreeEnd}). */
    public LockFreeReads reads() {
        return reads;
    }

    /** Transactions ({@code txCreate}, {@code execute}). */
    public Transactions transactions() {
        return transactions;
    }

    /** Function shipping ({@code msgRegisterHandler}, {@code msgSend}). */
    public FunctionShipping shipping() {
        return shipping;
    }
}
