package io.farm.bench.hashtable;

import io.farm.core.cluster.Node;
import io.farm.core.fabric.FabricStats;
import io.farm.hashtable.HashTable;
import io.farm.hashtable.HashTableStats;

/**
 * The counters of the measuring node at one instant, or their growth over a phase: its fabric
 * operations and its table's lookup counts ({@link HashTableStats}).
 *
 * @param fabric   the node's fabric operations
 * @param lookups  lookups completed on the node
 * @param reads      object reads those lookups made (fabric reads and local copies)
 * @param localReads of those, copies of the node's own objects made with local memory accesses
 * @param restarts   lookups that restarted
 */
record Snapshot(FabricStats fabric, long lookups, long reads, long localReads, long restarts) {
    /** The counters now. */
    static Snapshot of(Node node, HashTable table) {
        HashTableStats stats = table.stats();
        return new Snapshot(node.stats(), stats.lookups(), stats.lookupReads(), stats.lookupLocalReads(), stats.restarts());
    }

    /** The growth since {@code earlier}. */
    Snapshot minus(Snapshot earlier) {
        return new Snapshot(fabric.minus(earlier.fabric), lookups - earlier.lookups, reads - earlier.reads,
            localReads - earlier.localReads, restarts - earlier.restarts);
    }

    /** Object reads per lookup by the table's own count; 0 without lookups. */
    double hashtableReadsPerLookup() {
        return lookups == 0 ? 0 : (double) reads / lookups;
    }

    /** Local copies per lookup by the table's own count; 0 without lookups. */
    double localReadsPerLookup() {
        return lookups == 0 ? 0 : (double) localReads / lookups;
    }
}
