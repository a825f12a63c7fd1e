package io.farm.bench.hashtable;

/**
 * Operations done in a measured interval.
 *
 * @param operations operations completed
 * @param nanos      the interval, from the first issue to the last completion
 * @param retries    operations reissued after a passing failure ({@link Retries}); not counted in {@code operations}
 */
record Throughput(long operations, long nanos, long retries) {
    /** Operations per second. */
    double perSecond() {
        return operations * 1e9 / nanos;
    }
}
