package io.farm.hashtable.ycsb;

import io.farm.core.Farm;
import io.farm.hashtable.HashTable;
import io.farm.hashtable.HashTables;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The farm node that the YCSB {@link FarmDB} instances of this JVM run on. YCSB makes one DB
 * instance per client thread, by reflection, so the instances meet here: whoever starts or
 * joins the cluster binds its local node ({@link #bind}) before running the YCSB client, and
 * every instance then shares the node, its tables (each opened, or created, once per JVM) and
 * its workers (one per instance, round robin). One node is bound at a time.
 */
public final class YcsbNode implements AutoCloseable {
    private static final AtomicReference<YcsbNode> BOUND = new AtomicReference<>();

    private final Farm farm;
    private final HashTables tables;
    private final Map<String, HashTable> opened = new HashMap<>();
    private final AtomicInteger nextWorker = new AtomicInteger();

    private YcsbNode(Farm farm, HashTables tables) {
        this.farm = farm;
        this.tables = tables;
    }

    /**
     * Binds {@code tables}, the hashtables attached to {@code farm}'s node, for the YCSB DB
     * instances of this JVM; {@link #close} unbinds it.
     *
     * @throws IllegalStateException if a node is bound already
     */
    public static YcsbNode bind(Farm farm, HashTables tables) {
        YcsbNode node = new YcsbNode(Objects.requireNonNull(farm, "farm"), Objects.requireNonNull(tables, "tables"));
        YcsbNode previous = BOUND.compareAndExchange(null, node);
        if (previous != null) {
            throw new IllegalStateException("node " + previous.farm.node().id() + " is bound for YCSB already: one node "
                + "per JVM; close its binding first");
        }
        return node;
    }

    /** The bound node, or null. */
    static YcsbNode bound() {
        return BOUND.get();
    }

    /** The node's id. */
    public int nodeId() {
        return farm.node().id();
    }

    /**
     * The table {@code properties} name: this JVM's handle if opened before, else the node's
     * (if the cluster has it) or a new one of the properties' shape, created across the cluster.
     * Off workers only (creation blocks).
     */
    synchronized HashTable table(TableProperties properties) {
        HashTable table = opened.get(properties.table());
        if (table == null) {
            try {
                table = tables.open(properties.table());
            } catch (IllegalArgumentException absent) {
                table = tables.createBlocking(properties.table(), properties.config());
            }
            if (!table.config().equals(properties.config())) {
                System.err.println("farm: YCSB uses the existing table " + table.name() + " as it is, " + table.config()
                    + "; the farm.table.* properties (" + properties.config() + ") shape only a table the binding creates");
            }
            opened.put(properties.table(), table);
        }
        return table;
    }

    /** The worker index the next DB instance uses: the node's workers in turn. */
    int nextWorker() {
        return Math.floorMod(nextWorker.getAndIncrement(), farm.node().config().threads());
    }

    /** Unbinds the node (the DB instances that are running keep it). */
    @Override
    public void close() {
        BOUND.compareAndSet(this, null);
    }
}
