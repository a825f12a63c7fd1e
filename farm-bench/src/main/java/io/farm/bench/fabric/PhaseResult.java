package io.farm.bench.fabric;

import org.HdrHistogram.Histogram;

/**
 * What one measured phase of the fabric benchmark produced.
 *
 * @param operations completed operations
 * @param nanos      elapsed time of the phase
 * @param latency    latency of each operation, issue to completion, in nanoseconds (null if not measured)
 */
record PhaseResult(long operations, long nanos, Histogram latency) {
    /** Operations per second. */
    double opsPerSecond() {
        return operations * 1e9 / nanos;
    }

    /** A latency percentile in microseconds. */
    double percentileMicros(double percentile) {
        return latency.getValueAtPercentile(percentile) / 1e3;
    }
}
