package io.farm.hashtable;

/**
 * Where a key lives: a 64-bit hash of its bytes, the shard by jump consistent hashing (Lamping and
 * Veach: adding shards moves only the keys the new shards take), the home bucket within the shard
 * from the hash's other bits.
 */
public final class KeyHashing {
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private KeyHashing() {
    }

    /** The 64-bit hash of {@code key}. */
    public static long hash(byte[] key) {
        long h = mix(0x3C6EF372FE94F82BL ^ key.length);
        for (int start = 0; start < key.length; start += Long.BYTES) {
            long word = 0;
            int end = Math.min(key.length, start + Long.BYTES);
            for (int i = end - 1; i >= start; i--) {
                word = word << Byte.SIZE | (key[i] & 0xFF);
            }
            h = mix(h ^ word) + GOLDEN_GAMMA;
        }
        return mix(h);
    }

    /** The shard of {@code hash} among {@code shards}: jump consistent hashing. */
    public static int shard(long hash, int shards) {
        long key = hash;
        long b = -1;
        long j = 0;
        while (j < shards) {
            b = j;
            key = key * 2862933555777941757L + 1;
            j = (long) ((b + 1) * ((double) (1L << 31) / (double) ((key >>> 33) + 1)));
        }
        return (int) b;
    }

    /** The home bucket of {@code hash} among {@code buckets}: from bits independent of the shard's. */
    public static int bucket(long hash, int buckets) {
        return (int) Math.unsignedMultiplyHigh(mix(hash ^ GOLDEN_GAMMA), buckets);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
