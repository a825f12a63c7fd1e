package io.farm.core.placement;

import io.farm.core.addr.RegionId;

import java.nio.charset.StandardCharsets;

/**
 * The k hash functions that place a member on the k virtual rings: a 64-bit hash of the
 * member's name in UTF-8, seeded by the ring index, whose top {@value RegionId#POSITION_BITS}
 * bits are the member's position on that ring.
 *
 * <p>The hash absorbs the name 8 bytes at a time (little endian, the last word zero padded;
 * the length is folded into the seed) through a SplitMix64-style bijective mixer, and mixes
 * once more at the end. Every node must compute the same positions: changing this function
 * moves every region of a cluster, so never change it.
 */
final class RingHash {
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;
    private static final long SEED = 0x5DEECE66DF00D5L;

    private RingHash() {
    }

    /** The position, 0 .. 2^24 - 1, of {@code name} on virtual ring {@code ring}. */
    static int position(String name, int ring) {
        return (int) (hash(name.getBytes(StandardCharsets.UTF_8), ring) >>> (Long.SIZE - RegionId.POSITION_BITS));
    }

    static long hash(byte[] bytes, int ring) {
        long h = mix(SEED + (ring + 1L) * GOLDEN_GAMMA) ^ bytes.length;
        for (int start = 0; start < bytes.length; start += Long.BYTES) {
            long word = 0;
            int end = Math.min(bytes.length, start + Long.BYTES);
            for (int i = end - 1; i >= start; i--) {
                word = word << Byte.SIZE | (bytes[i] & 0xFF);
            }
            h = mix(h ^ word) + GOLDEN_GAMMA;
        }
        return mix(h);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
