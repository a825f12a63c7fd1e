package io.farm.bench.hashtable;

/**
 * The distinct keys and their values of one benchmark table, made before the run so that
 * lookups build nothing. Key {@code i} begins with the 8 little-endian bytes of a bijective mix
 * of {@code i} (so keys are distinct and look random to the table's hash); longer keys continue
 * with further mixed words. Value {@code i} is made the same way from another mix of {@code i}.
 * Lookups check every value they get against these.
 */
final class BenchKeys {
    private static final long KEY_SEED = 0x6A09E667F3BCC908L;
    private static final long VALUE_SEED = 0xBB67AE8584CAA73BL;

    private final byte[][] keys;
    private final byte[][] values;

    /**
     * @param count       keys
     * @param keyLength   bytes per key, 8 or more
     * @param valueLength bytes per value, 8 or more
     */
    BenchKeys(int count, int keyLength, int valueLength) {
        if (keyLength < Long.BYTES || valueLength < Long.BYTES) {
            throw new IllegalArgumentException("benchmark keys and values are 8 bytes or more, not " + keyLength + " and "
                + valueLength);
        }
        keys = new byte[count][];
        values = new byte[count][];
        for (int i = 0; i < count; i++) {
            keys[i] = bytes(keyWord(i), keyLength);
            values[i] = bytes(valueWord(i), valueLength);
        }
    }

    /** The number of keys. */
    int count() {
        return keys.length;
    }

    /** Key {@code i} (shared: do not modify). */
    byte[] key(int i) {
        return keys[i];
    }

    /** Value {@code i} (shared: do not modify). */
    byte[] value(int i) {
        return values[i];
    }

    /** The first 8 bytes of key {@code i} as a long: distinct for distinct {@code i}. */
    private static long keyWord(int i) {
        return mix(i ^ KEY_SEED);
    }

    /** The first 8 bytes of value {@code i} as a long. */
    private static long valueWord(int i) {
        return mix(i ^ VALUE_SEED);
    }

    private static byte[] bytes(long first, int length) {
        byte[] bytes = new byte[length];
        long word = first;
        for (int at = 0; at < length; at += Long.BYTES) {
            for (int b = 0; b < Long.BYTES && at + b < length; b++) {
                bytes[at + b] = (byte) (word >>> (8 * b));
            }
            word = mix(word);
        }
        return bytes;
    }

    /** A bijective 64-bit mixer (the finalizer of SplitMix64). */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
