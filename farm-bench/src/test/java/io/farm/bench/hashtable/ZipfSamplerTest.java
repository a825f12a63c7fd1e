package io.farm.bench.hashtable;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ZipfSamplerTest {
    @Test
    void probabilitiesFollowZipfsLawAndSumToOne() {
        ZipfSampler zipf = new ZipfSampler(1000, 0.99);
        double harmonic = 0;
        for (int r = 1; r <= 1000; r++) {
            harmonic += Math.pow(r, -0.99);
        }
        double sum = 0;
        for (int r = 0; r < 1000; r++) {
            assertEquals(Math.pow(r + 1, -0.99) / harmonic, zipf.probability(r), 1e-12, "rank " + r);
            sum += zipf.probability(r);
        }
        assertEquals(1.0, sum, 1e-12);
    }

    @Test
    void drawnRankFrequenciesMatchTheirProbabilities() {
        ZipfSampler zipf = new ZipfSampler(100, 0.99);
        int draws = 1_000_000;
        int[] counts = new int[100];
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < draws; i++) {
            counts[zipf.sample(random)]++;
        }
        for (int r : new int[] {0, 1, 9, 99}) {
            double p = zipf.probability(r);
            // Six standard deviations of a binomial count: a seeded draw far inside this never fails by chance.
            double slack = 6 * Math.sqrt(draws * p * (1 - p));
            assertTrue(Math.abs(counts[r] - draws * p) < slack, "rank " + r + ": " + counts[r] + " draws, expected "
                + draws * p);
        }
    }

    @Test
    void exponentZeroIsUniformAndEveryDrawIsARank() {
        ZipfSampler uniform = new ZipfSampler(7, 0);
        SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < 10_000; i++) {
            int rank = uniform.sample(random);
            assertTrue(rank >= 0 && rank < 7, "rank " + rank);
        }
        assertEquals(1.0 / 7, uniform.probability(6), 1e-12);
    }

    @Test
    void badShapesAreRefused() {
        assertEquals("Zipf over 0 ranks with exponent 0.99 is not accepted: 1 or more ranks, a finite exponent >= 0",
            assertThrows(IllegalArgumentException.class, () -> new ZipfSampler(0, 0.99)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ZipfSampler(10, -1));
        assertThrows(IllegalArgumentException.class, () -> new ZipfSampler(10, Double.NaN));
    }
}
