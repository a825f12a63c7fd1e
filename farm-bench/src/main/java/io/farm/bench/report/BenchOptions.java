package io.farm.bench.report;

import io.farm.core.config.ClusterConfig;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/** The options every benchmark driver shares (a picocli mixin): where its files go and {@code --json}. */
public final class BenchOptions {
    @Option(names = "--data-dir", description = "parent of the benchmark's data directory (default: under /dev/shm)")
    Path dataDir;

    @Option(names = "--json", description = "print one JSON object with the figures as the last line of stdout")
    boolean json;

    /** The directory of a benchmark run called {@code name}: under --data-dir, else farm's default. */
    public Path dataDir(String name) {
        return dataDir != null ? dataDir.resolve(name).toAbsolutePath() : ClusterConfig.defaultDataDir(name);
    }

    /** Prints {@code result} as the last line of stdout when --json was given. */
    public void print(JsonObject result) {
        if (json) {
            System.out.println(result);
        }
    }

    /**
     * Checks that option {@code option}'s {@code value} lies in {@code min .. max}.
     *
     * @throws IllegalArgumentException naming the option, the value and the accepted range
     */
    public static int checkRange(String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(option + " " + value + " is not accepted: " + min + ".." + max);
        }
        return value;
    }

    /**
     * Checks a duration in seconds.
     *
     * @throws IllegalArgumentException unless more than 0 and at most 600
     */
    public static double checkSeconds(double seconds) {
        if (!(seconds > 0 && seconds <= 600)) {
            throw new IllegalArgumentException("--seconds " + seconds + " is not accepted: more than 0, at most 600");
        }
        return seconds;
    }
}
