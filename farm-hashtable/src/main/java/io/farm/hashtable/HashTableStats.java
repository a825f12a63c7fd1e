package io.farm.hashtable;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counts of one node's operations on one table; updated by its workers (striped counters: the
 * workers count every lookup, and one shared line would ping-pong between them), readable from
 * any thread.
 */
public final class HashTableStats {
    private final LongAdder lookups = new LongAdder();
    private final LongAdder lookupReads = new LongAdder();
    private final LongAdder lookupLocalReads = new LongAdder();
    private final LongAdder restarts = new LongAdder();
    private final LongAdder mutations = new LongAdder();

    void countLookup(int reads, int localReads) {
        lookups.increment();
        lookupReads.add(reads);
        lookupLocalReads.add(localReads);
    }

    void countRestart() {
        restarts.increment();
    }

    void countMutation() {
        mutations.increment();
    }

    /** Lookups completed. */
    public long lookups() {
        return lookups.sum();
    }

    /**
     * Object reads those lookups made, restarted attempts included: fabric reads, and copies of
     * this node's objects made with local memory accesses ({@link #lookupLocalReads}).
     */
    public long lookupReads() {
        return lookupReads.sum();
    }

    /** Of {@link #lookupReads}, the copies of this node's objects made with local memory accesses. */
    public long lookupLocalReads() {
        return lookupLocalReads.sum();
    }

    /** Lookups that restarted (joint versions or incarnations changed under them). */
    public long restarts() {
        return restarts.sum();
    }

    /** Mutations sent to shard primaries. */
    public long mutations() {
        return mutations.sum();
    }

    /** Object reads per lookup ({@link #lookupReads}); 0 before any. */
    public double readsPerLookup() {
        long n = lookups();
        return n == 0 ? 0 : (double) lookupReads() / n;
    }
}
