package io.farm.hashtable;

import java.util.concurrent.atomic.AtomicLong;

/** Counts of one node's operations on one table; updated by its workers, readable from any thread. */
public final class HashTableStats {
    private final AtomicLong lookups = new AtomicLong();
    private final AtomicLong lookupReads = new AtomicLong();
    private final AtomicLong lookupLocalReads = new AtomicLong();
    private final AtomicLong restarts = new AtomicLong();
    private final AtomicLong mutations = new AtomicLong();

    void countLookup(int reads, int localReads) {
        lookups.incrementAndGet();
        lookupReads.addAndGet(reads);
        lookupLocalReads.addAndGet(localReads);
    }

    void countRestart() {
        restarts.incrementAndGet();
    }

    void countMutation() {
        mutations.incrementAndGet();
    }

    /** Lookups completed. */
    public long lookups() {
        return lookups.get();
    }

    /**
     * Object reads those lookups made, restarted attempts included: fabric reads, and copies of
     * this node's objects made with local memory accesses ({@link #lookupLocalReads}).
     */
    public long lookupReads() {
        return lookupReads.get();
    }

    /** Of {@link #lookupReads}, the copies of this node's objects made with local memory accesses. */
    public long lookupLocalReads() {
        return lookupLocalReads.get();
    }

    /** Lookups that restarted (joint versions or incarnations changed under them). */
    public long restarts() {
        return restarts.get();
    }

    /** Mutations sent to shard primaries. */
    public long mutations() {
        return mutations.get();
    }

    /** Object reads per lookup ({@link #lookupReads}); 0 before any. */
    public double readsPerLookup() {
        long n = lookups();
        return n == 0 ? 0 : (double) lookupReads() / n;
    }
}
