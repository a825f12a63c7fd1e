package io.farm.hashtable;

import io.farm.core.object.ObjectLayout;

/**
 * The shape of one hashtable (FaRM NSDI'14 §3.6), fixed at creation.
 *
 * @param neighbourhood       H: slots in a key's neighbourhood, its bucket and the next; even, 2 .. 64;
 *                            each bucket holds H/2 slots
 * @param maxKeyLength        the longest key, 1 .. 255 bytes; a key is stored inline in its slot
 * @param maxInlineValue      the longest value stored inline in a slot, 0 .. 1024 bytes; longer
 *                            values (up to {@link #maxValueLength}) live in objects of their own,
 *                            behind a fat pointer in the slot
 * @param maxValueLength      the longest value, {@code maxInlineValue} .. 1 MiB less the object overheads
 * @param shards              shards (arrays of buckets), 1 .. 65,536, placed over the nodes by consistent hashing
 * @param bucketsPerShard     home buckets per shard, 1 or more; each shard stores one more bucket
 *                            (the last home bucket's neighbour), all in one allocation
 * @param overflowSlots       slots per overflow block, 1 .. 64 (FaRM: 2)
 */
public record HashTableConfig(int neighbourhood, int maxKeyLength, int maxInlineValue, int maxValueLength,
                              int shards, int bucketsPerShard, int overflowSlots) {
    /** FaRM's overflow blocks hold two slots. */
    public static final int DEFAULT_OVERFLOW_SLOTS = 2;
    /** The largest value: what one object holds beside its length word. */
    public static final int MAX_VALUE_LENGTH = ObjectLayout.MAX_APPLICATION_SIZE - Integer.BYTES;

    /**
     * @throws IllegalArgumentException naming the value out of range and what is accepted
     */
    public HashTableConfig {
        check("neighbourhood H", neighbourhood, 2, 64);
        if (neighbourhood % 2 != 0) {
            throw new IllegalArgumentException("neighbourhood H " + neighbourhood + " is odd: H is even (2, 4, 6, 8, ...), "
                + "each bucket holding H/2 slots");
        }
        check("maxKeyLength", maxKeyLength, 1, 255);
        check("maxInlineValue", maxInlineValue, 0, 1024);
        check("maxValueLength", maxValueLength, maxInlineValue, MAX_VALUE_LENGTH);
        check("shards", shards, 1, 65_536);
        check("bucketsPerShard", bucketsPerShard, 1, Integer.MAX_VALUE - 1);
        check("overflowSlots", overflowSlots, 1, 64);
    }

    /** A table of H = 8, keys up to {@code maxKeyLength}, values inline up to {@code maxInlineValue}. */
    public static HashTableConfig of(int neighbourhood, int maxKeyLength, int maxInlineValue, int maxValueLength,
                                     int shards, int bucketsPerShard) {
        return new HashTableConfig(neighbourhood, maxKeyLength, maxInlineValue, maxValueLength, shards, bucketsPerShard,
            DEFAULT_OVERFLOW_SLOTS);
    }

    /** Slots per bucket, H/2. */
    public int slotsPerBucket() {
        return neighbourhood / 2;
    }

    /** Slots in buckets, the denominator of occupancy: shards x home buckets x H/2. */
    public long bucketSlots() {
        return (long) shards * bucketsPerShard * slotsPerBucket();
    }

    private static void check(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException("hashtable " + name + " " + value + " out of range: " + min + ".." + max);
        }
    }
}
