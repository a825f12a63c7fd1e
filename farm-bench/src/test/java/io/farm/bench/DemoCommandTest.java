package io.farm.bench;

import io.farm.core.config.ClusterConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DemoCommandTest {
    private static final Pattern LOOKUPS = Pattern.compile("^lookup\\s+([\\d,]+)\\s+[\\d,]+\\s+[\\d.]+\\s+[\\d.]+\\s+[\\d.]+$");
    private static final Pattern VERIFIED = Pattern.compile(
        "^lookups verified \\(each value is its key's\\): ([\\d,]+); wrong values: 0; failed operations: 0$");
    private static final Pattern READS = Pattern.compile("^reads per lookup: ([\\d.]+) .*$");

    private static long number(String digits) {
        return Long.parseLong(digits.replace(",", ""));
    }

    @Test
    void demoLoadsTheTableRunsTheMixVerifiesEveryLookupAndRemovesItsFiles() {
        FarmRun run = FarmRun.of("demo", "--keys", "3000", "--seconds", "1");

        assertEquals(0, run.exitCode(), run.toString());
        assertTrue(run.stdout().contains("load: 3,000 puts"), run.toString());
        assertTrue(run.stderr().contains("100 % 3,000/3,000 keys"), run.toString());
        long lookups = -1;
        long verified = -1;
        double readsPerLookup = -1;
        for (String line : run.stdoutLines()) {
            Matcher row = LOOKUPS.matcher(line);
            if (row.matches()) {
                lookups = number(row.group(1));
            }
            Matcher checked = VERIFIED.matcher(line);
            if (checked.matches()) {
                verified = number(checked.group(1));
            }
            Matcher reads = READS.matcher(line);
            if (reads.matches()) {
                readsPerLookup = Double.parseDouble(reads.group(1));
            }
        }
        assertTrue(lookups > 0, run.toString());
        assertEquals(lookups, verified, "every lookup verified\n" + run);
        assertTrue(readsPerLookup >= 1.0, run.toString());
        assertTrue(run.stdout().contains("update transactions:"), run.toString());
        Path dataDir = ClusterConfig.defaultDataDir("demo-" + ProcessHandle.current().pid());
        assertFalse(Files.exists(dataDir), dataDir + " is left after the demo");
    }

    @Test
    void demoRefusesOutOfRangeOptions() {
        String[][] cases = {{"--keys", "0", "1..10000000"}, {"--seconds", "0", "1..600"}, {"--lookups", "101", "0..100"}};
        for (String[] option : cases) {
            FarmRun run = FarmRun.of("demo", option[0], option[1]);

            assertEquals(2, run.exitCode(), run.toString());
            assertTrue(run.stderr().contains(option[0] + " " + option[1] + " is not accepted: " + option[2]), run.toString());
            assertTrue(run.stdout().isEmpty(), run.toString());
        }
    }
}
