package io.farm.bench.hashtable;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Exact Zipf sampling of ranks 0 .. n-1 by inversion: rank r has probability
 * {@code (r + 1)^-s / H(n, s)}, where {@code H(n, s)} is the generalized harmonic number. The
 * cumulative distribution is computed once ({@code n} doubles); a sample is a binary search for a
 * uniform draw in it. Immutable: threads share one sampler, each with its own random source.
 */
final class ZipfSampler {
    private final double[] cumulative;

    /**
     * @param n        ranks, 1 or more
     * @param exponent the skew s, 0 (uniform) or more; 0.99 is the usual "Zipf" of key-value benchmarks
     * @throws IllegalArgumentException if n is below 1 or the exponent negative or not finite
     */
    ZipfSampler(int n, double exponent) {
        if (n < 1 || !(exponent >= 0) || Double.isInfinite(exponent)) {
            throw new IllegalArgumentException("Zipf over " + n + " ranks with exponent " + exponent
                + " is not accepted: 1 or more ranks, a finite exponent >= 0");
        }
        cumulative = new double[n];
        double sum = 0;
        for (int r = 0; r < n; r++) {
            sum += Math.pow(r + 1, -exponent);
            cumulative[r] = sum;
        }
        for (int r = 0; r < n; r++) {
            cumulative[r] /= sum;
        }
        // Rounding may leave the last entry a hair below 1: no draw may fall past it.
        cumulative[n - 1] = 1.0;
    }

    /** The number of ranks. */
    int ranks() {
        return cumulative.length;
    }

    /** The probability of rank {@code r}. */
    double probability(int r) {
        return r == 0 ? cumulative[0] : cumulative[r] - cumulative[r - 1];
    }

    /** A rank drawn from the distribution with {@code random}. */
    int sample(SplittableRandom random) {
        double u = random.nextDouble();
        int found = Arrays.binarySearch(cumulative, u);
        // The first rank whose cumulative probability exceeds u (an exact hit belongs to the next rank).
        return found >= 0 ? Math.min(found + 1, cumulative.length - 1) : -found - 1;
    }
}
