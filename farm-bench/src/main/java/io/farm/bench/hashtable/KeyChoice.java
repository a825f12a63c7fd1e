package io.farm.bench.hashtable;

import java.util.SplittableRandom;

/**
 * How a lookup picks its key among the table's {@code n} keys: uniformly, or by Zipf with
 * exponent 0.99 (key index = Zipf rank; the keys' bytes are hashed, so the popular keys are spread
 * over shards and buckets like the others). Each thread draws a sequence of key indices before
 * it measures ({@link #draws}) and cycles through it, so that drawing costs nothing in the
 * measured loop and farm and Chronicle Map look up exactly the same sequences.
 */
enum KeyChoice {
    UNIFORM("uniform"),
    ZIPF("zipf");

    /** The skew of {@link #ZIPF}. */
    static final double ZIPF_EXPONENT = 0.99;
    /** Key indices drawn per thread: a power of two, far more than the keys any phase touches hot. */
    static final int DRAWS = 1 << 20;

    private final String label;

    KeyChoice(String label) {
        this.label = label;
    }

    /** The name used in the report. */
    String label() {
        return label;
    }

    /** A sampler of key indices for {@code keys} keys (null for uniform, which needs none). */
    ZipfSampler sampler(int keys) {
        return this == ZIPF ? new ZipfSampler(keys, ZIPF_EXPONENT) : null;
    }

    /**
     * {@value #DRAWS} key indices in 0 .. keys-1 for one thread, from {@code seed}.
     *
     * @param zipf the sampler of {@link #sampler} (for {@link #ZIPF})
     */
    int[] draws(int keys, ZipfSampler zipf, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int[] draws = new int[DRAWS];
        for (int i = 0; i < DRAWS; i++) {
            draws[i] = this == ZIPF ? zipf.sample(random) : random.nextInt(keys);
        }
        return draws;
    }
}
