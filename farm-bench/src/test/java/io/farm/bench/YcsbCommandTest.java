package io.farm.bench;

import io.farm.core.cluster.JvmProcess;
import io.farm.core.config.ClusterConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code farm ycsb}: YCSB's client with the farm hashtable binding, on an embedded or a static cluster. */
class YcsbCommandTest {
    private static final Pattern METRIC = Pattern.compile("^\\[([A-Z_%-]+[A-Za-z0-9_%-]*)], ([^,]+), (.+)$");
    private static final String RECORDS = "150";
    private static final String OPERATIONS = "300";

    @TempDir
    Path temp;

    /** One phase's report: "[SECTION], name, value" lines keyed "SECTION name". */
    private static List<Map<String, String>> phases(FarmRun run) {
        List<Map<String, String>> phases = new ArrayList<>();
        for (String line : run.stdoutLines()) {
            Matcher metric = METRIC.matcher(line);
            if (!metric.matches()) {
                continue;
            }
            if (metric.group(1).equals("OVERALL") && metric.group(2).equals("RunTime(ms)")) {
                phases.add(new HashMap<>());
            }
            phases.getLast().put(metric.group(1) + " " + metric.group(2), metric.group(3));
        }
        return phases;
    }

    private static long count(Map<String, String> phase, String key) {
        return Long.parseLong(phase.getOrDefault(key, "0"));
    }

    /** Every status of the phase is OK and no operation failed, but in the {@code excepted} sections. */
    private static void assertOnlyOkReturnsAndNoFailures(Map<String, String> phase, FarmRun run, String... excepted) {
        for (String key : phase.keySet()) {
            String section = key.substring(0, key.indexOf(' '));
            if (List.of(excepted).contains(section)) {
                continue;
            }
            assertTrue(!key.contains(" Return=") || key.endsWith(" Return=OK"), "unexpected status " + key + "\n" + run);
            assertFalse(section.endsWith("-FAILED"), "failed operations " + key + "\n" + run);
        }
    }

    private FarmRun ycsb(String workload, String... extra) {
        List<String> args = new ArrayList<>(List.of("ycsb", "load+run", "-P", workload, "-p", "recordcount=" + RECORDS,
            "-p", "operationcount=" + OPERATIONS, "-threads", "2", "--region-size", Integer.toString(16 << 20)));
        args.addAll(List.of(extra));
        return FarmRun.of(args.toArray(String[]::new));
    }

    @Test
    void theYcsbBindingPassesASmallLoadAndRunOfWorkloadAThroughTheStockClient() {
        // By path (tests run in farm-bench); the other tests name the shipped workloads.
        FarmRun run = ycsb("src/main/resources/ycsb/workloada");
        assertEquals(0, run.exitCode(), run.toString());
        List<Map<String, String>> phases = phases(run);
        assertEquals(2, phases.size(), run.toString());
        Map<String, String> load = phases.get(0);
        assertEquals(Long.parseLong(RECORDS), count(load, "INSERT Return=OK"), run.toString());
        assertOnlyOkReturnsAndNoFailures(load, run);
        Map<String, String> transactions = phases.get(1);
        long reads = count(transactions, "READ Return=OK");
        long updates = count(transactions, "UPDATE Return=OK");
        assertEquals(Long.parseLong(OPERATIONS), reads + updates, run.toString());
        assertTrue(reads > 0 && updates > 0, "workload A reads and updates\n" + run);
        assertEquals(reads, count(transactions, "READ Operations"));
        assertOnlyOkReturnsAndNoFailures(transactions, run);
    }

    @Test
    void theYcsbBindingPassesASmallLoadAndRunOfWorkloadFThroughTheStockClient() {
        FarmRun run = ycsb("workloadf");
        assertEquals(0, run.exitCode(), run.toString());
        List<Map<String, String>> phases = phases(run);
        assertEquals(2, phases.size(), run.toString());
        assertEquals(Long.parseLong(RECORDS), count(phases.get(0), "INSERT Return=OK"), run.toString());
        assertOnlyOkReturnsAndNoFailures(phases.get(0), run);
        Map<String, String> transactions = phases.get(1);
        // Every operation reads; a read-modify-write also updates what it read.
        assertEquals(Long.parseLong(OPERATIONS), count(transactions, "READ Return=OK"), run.toString());
        long readModifyWrites = count(transactions, "READ-MODIFY-WRITE Operations");
        assertTrue(readModifyWrites > 0, run.toString());
        assertEquals(readModifyWrites, count(transactions, "UPDATE Return=OK"), run.toString());
        assertOnlyOkReturnsAndNoFailures(transactions, run);
    }

    @Test
    void workloadEReportsItsScansAsNotImplemented() {
        FarmRun run = ycsb("workloade");
        assertEquals(0, run.exitCode(), run.toString());
        Map<String, String> transactions = phases(run).get(1);
        long scans = count(transactions, "SCAN Return=NOT_IMPLEMENTED");
        long inserts = count(transactions, "INSERT Return=OK");
        assertTrue(scans > 0 && inserts > 0, run.toString());
        assertEquals(Long.parseLong(OPERATIONS), scans + inserts, run.toString());
        assertEquals(scans, count(transactions, "SCAN-FAILED Operations"), run.toString());
        assertOnlyOkReturnsAndNoFailures(transactions, run, "SCAN", "SCAN-FAILED");
    }

    @Test
    void aRunOnAStaticClusterUsesTheTableServedByFarmNodeProcesses() throws Exception {
        Path configFile = temp.resolve("cluster.properties");
        ClusterConfig.builder().name("ycsb-static").memberCount(3).backups(2).fabric("shm").threads(1)
            .regionSize(16 << 20).dataDir(temp.resolve("data")).build().store(configFile);
        List<JvmProcess> nodes = new ArrayList<>();
        try {
            for (int id = 0; id < 2; id++) {
                nodes.add(JvmProcess.start("node " + id, temp.resolve("node-" + id + ".log"), List.of("-Xmx256m"),
                    FarmMain.class.getName(), List.of("node", "--config", configFile.toString(), "--id",
                        Integer.toString(id), "--exit-on-stdin-end")));
            }
            for (int id = 0; id < nodes.size(); id++) {
                nodes.get(id).awaitLine("farm: node " + id + " of cluster ycsb-static serves", Duration.ofSeconds(60));
            }
            FarmRun run = FarmRun.of("ycsb", "load+run", "-P", "workloada", "-p", "recordcount=100", "-p",
                "operationcount=100", "--config", configFile.toString(), "--id", "2");
            assertEquals(0, run.exitCode(), run + "\n" + nodes.getFirst().logTail());
            assertTrue(run.stderr().contains("YCSB as node 2 of cluster ycsb-static"), run.toString());
            List<Map<String, String>> phases = phases(run);
            assertEquals(100, count(phases.get(0), "INSERT Return=OK"), run.toString());
            assertEquals(100, count(phases.get(1), "READ Return=OK") + count(phases.get(1), "UPDATE Return=OK"),
                run.toString());
            assertOnlyOkReturnsAndNoFailures(phases.get(1), run);
        } finally {
            nodes.forEach(JvmProcess::close);
        }
    }

    @Test
    void badPhasesWorkloadsAndBindingsAreRefused() {
        FarmRun phases = FarmRun.of("ycsb", "load+walk", "-P", "workloada");
        assertEquals(2, phases.exitCode(), phases.toString());
        assertTrue(phases.stderr().contains("phases load+walk are not accepted: load, run"), phases.toString());

        FarmRun missing = FarmRun.of("ycsb", "load", "-P", temp.resolve("no-such-workload").toString());
        assertEquals(2, missing.exitCode(), missing.toString());
        assertTrue(missing.stderr().contains("no such file, nor a shipped workload"), missing.toString());

        FarmRun otherDb = FarmRun.of("ycsb", "load", "-P", "workloada", "-p", "db=site.ycsb.BasicDB");
        assertEquals(2, otherDb.exitCode(), otherDb.toString());
        assertTrue(otherDb.stderr().contains("db=site.ycsb.BasicDB is not accepted"), otherDb.toString());

        FarmRun halfStatic = FarmRun.of("ycsb", "load", "-P", "workloada", "--id", "1");
        assertEquals(2, halfStatic.exitCode(), halfStatic.toString());
        assertTrue(halfStatic.stderr().contains("--config and --id go together"), halfStatic.toString());
    }

    @Test
    void aBadBindingPropertyFailsThePhase() {
        FarmRun run = ycsb("workloadc", "-p", "farm.table.buckets=none");
        assertEquals(1, run.exitCode(), run.toString());
        assertTrue(run.stderr().contains("farm.table.buckets=none is not accepted: an integer"), run.toString());
        assertTrue(run.stderr().contains("load phase did 0 of " + RECORDS + " operations"), run.toString());
    }
}
