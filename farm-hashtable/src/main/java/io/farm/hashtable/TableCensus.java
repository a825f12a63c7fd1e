package io.farm.hashtable;

/**
 * What a table holds and occupies ({@link HashTable#census}).
 *
 * @param pairs              key-value pairs
 * @param pairBytes          bytes of their keys and values
 * @param bucketSlots        slots in home buckets (the denominator of occupancy)
 * @param pairsInBuckets     pairs in bucket slots (the rest are in overflow chains)
 * @param overflowBlocks     overflow blocks
 * @param outOfLineValues    values stored in objects of their own
 * @param occupiedBytes      bytes of memory the table takes: the allocations (size classes) of
 *                           its shards, overflow blocks and out-of-line values
 */
public record TableCensus(long pairs, long pairBytes, long bucketSlots, long pairsInBuckets, long overflowBlocks,
                          long outOfLineValues, long occupiedBytes) {
    /** Pairs over bucket slots. */
    public double occupancy() {
        return (double) pairs / bucketSlots;
    }

    /** Bytes of keys and values over the bytes the table occupies (FaRM's space utilization, Figure 11). */
    public double spaceUtilization() {
        return (double) pairBytes / occupiedBytes;
    }
}
