package io.farm.bench.alloc;

import java.util.SplittableRandom;

/**
 * The object sizes the allocator benchmark asks for: small records dominate, as in the
 * workloads farm targets (hashtable buckets and overflow blocks, Tao objects and associations,
 * YCSB records of about 1 KiB), with a tail of large values.
 *
 * <pre>
 *   50 %   64 ..    128 B   buckets, small objects, associations
 *   30 %  129 ..  1 024 B   Tao objects, YCSB records
 *   15 %    1 ..      8 KiB large records
 *    5 %    8 ..     64 KiB out-of-line values
 * </pre>
 * Sizes are uniform within each band and need not be multiples of 64.
 */
final class SizeMix {
    private final SplittableRandom random;

    SizeMix(long seed) {
        this.random = new SplittableRandom(seed);
    }

    int next() {
        int band = random.nextInt(100);
        if (band < 50) {
            return random.nextInt(64, 129);
        }
        if (band < 80) {
            return random.nextInt(129, 1025);
        }
        if (band < 95) {
            return random.nextInt(1025, 8 * 1024 + 1);
        }
        return random.nextInt(8 * 1024 + 1, 64 * 1024 + 1);
    }
}
