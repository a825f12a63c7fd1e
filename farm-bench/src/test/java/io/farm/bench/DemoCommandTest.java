package io.farm.bench;

import io.farm.core.config.ClusterConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DemoCommandTest {
    private static final int NODES = 3;
    private static final int THREADS = ClusterConfig.DEFAULT_THREADS;
    private static final int OBJECTS = 40;
    private static final int PINGS = 3;
    /** A row of the accounting table: node, phase, then count and size of reads, writes and messages. */
    private static final Pattern ROW = Pattern.compile(
        "^(\\d+)\\s+(reads|pings)\\s+([\\d,]+)\\s+\\S+ \\S+\\s+([\\d,]+)\\s+\\S+ \\S+\\s+([\\d,]+)\\s+\\S+ \\S+$");
    private static final Pattern REGION_FILE = Pattern.compile("^\\d+\\s+r\\d+:\\d+\\s+\\d+\\s+\\[[\\d, ]*]\\s+(\\S+)$");

    private record Counts(long reads, long writes, long messages) {
    }

    private static long number(String digits) {
        return Long.parseLong(digits.replace(",", ""));
    }

    @Test
    void demoVerifiesReadsAndPingsPrintsTheAccountingAndRemovesItsFiles() {
        FarmRun run = FarmRun.of("demo", "--objects", Integer.toString(OBJECTS), "--pings", Integer.toString(PINGS));

        assertEquals(0, run.exitCode(), run.toString());
        String out = run.stdout();
        assertTrue(out.contains((NODES * (NODES - 1) * OBJECTS) + " objects verified"), run.toString());
        assertTrue(out.contains((NODES * THREADS * NODES * PINGS) + " round trips"), run.toString());
        assertTrue(out.contains("Accounting"), run.toString());

        Map<String, Counts> rows = new HashMap<>();
        List<Path> regionFiles = new ArrayList<>();
        for (String line : run.stdoutLines()) {
            Matcher row = ROW.matcher(line);
            if (row.matches()) {
                rows.put(row.group(1) + " " + row.group(2),
                    new Counts(number(row.group(3)), number(row.group(4)), number(row.group(5))));
            }
            Matcher region = REGION_FILE.matcher(line);
            if (region.matches()) {
                regionFiles.add(Path.of(region.group(1)));
            }
        }
        assertEquals(2 * NODES, rows.size(), "a reads row and a pings row per node\n" + run);
        for (int node = 0; node < NODES; node++) {
            Counts reads = rows.get(node + " reads");
            assertEquals(new Counts((NODES - 1) * OBJECTS, 0, 0), reads, "node " + node + " reads every other node's objects once");
            Counts pings = rows.get(node + " pings");
            // Its workers' pings to every node, and its answers to every worker's pings of it.
            long messages = 2L * THREADS * NODES * PINGS;
            assertEquals(0, pings.reads(), "node " + node + " pings");
            assertEquals(messages, pings.messages(), "node " + node + " pings");
            assertTrue(pings.writes() >= messages, "every message is carried by a write: " + pings);
        }

        Path dataDir = ClusterConfig.defaultDataDir("demo-" + ProcessHandle.current().pid());
        assertEquals(NODES, regionFiles.size(), "one data region per node\n" + run);
        for (Path file : regionFiles) {
            assertTrue(file.startsWith(dataDir), file + " is in the demo's data directory " + dataDir);
            assertFalse(Files.exists(file), file + " is left after the demo");
        }
        assertFalse(Files.exists(dataDir), dataDir + " is left after the demo");
    }

    @Test
    void demoRefusesOutOfRangeObjectCounts() {
        for (String objects : new String[] {"0", "1000001"}) {
            FarmRun run = FarmRun.of("demo", "--objects", objects);

            assertEquals(2, run.exitCode(), run.toString());
            assertTrue(run.stderr().contains("--objects " + objects + " is not accepted: 1..1000000"), run.toString());
            assertTrue(run.stdout().isEmpty(), run.toString());
        }
    }
}
