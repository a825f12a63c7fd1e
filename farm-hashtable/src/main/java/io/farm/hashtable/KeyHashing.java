package io.farm.hashtable;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Where a key lives: a 64-bit hash of its bytes, the shard by jump consistent hashing (Lamping and
 * Veach: adding shards moves only the keys the new shards take), the home bucket within the shard
 * from the hash's other bits.
 */
public final class KeyHashing {
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;
    /** Little-endian words of a key: the same words the byte loop would assemble, read at once. */
    private static final VarHandle WORD =
        MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private KeyHashing() {
    }

    /** The 64-bit hash of {@code key}. */
    public static long hash(byte[] key) {
        long h = mix(0x3C6EF372FE94F82BL ^ key.length);
        int start = 0;
        for (; start + Long.BYTES <= key.length; start += Long.BYTES) {
            h = mix(h ^ (long) WORD.get(key, start)) + GOLDEN_GAMMA;
        }
        if (start < key.length) {
            long word = 0;
            for (int i = key.length - 1; i >= start; i--) {
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
