package io.farm.bench.check;

import com.fasterxml.jackson.databind.JsonNode;
import io.farm.bench.FarmRun;
import io.farm.core.cluster.JvmProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code farm check bank} in this JVM: short runs on both fabrics, its JSON, bad input, a killed coordinator. */
class BankCheckCommandTest {
    /** The fields the JSON documents (docs/benchmarks.md). */
    private static final List<String> FIELDS = List.of("check", "fabric", "nodes", "workers_per_node", "accounts", "seconds",
        "committed", "committed_per_s", "aborted", "aborted_by_reason", "transfers", "transfers_declined", "audits",
        "partial_audits", "wrong_audits", "gave_up", "outcome_unknown", "errors", "expected_total", "final_total",
        "invariant_holds", "history_transactions", "history_dropped", "serializability_violations", "cycles",
        "impossibilities", "check_seconds", "passed");
    private static final List<String> ABORT_REASONS = List.of("conflict", "lock_held", "validation_failed", "object_freed",
        "configuration_changed", "timeout");

    @TempDir
    Path temp;

    private FarmRun check(String... options) {
        List<String> args = new ArrayList<>(List.of("check", "bank", "--data-dir", temp.resolve("data").toString()));
        args.addAll(List.of(options));
        return FarmRun.of(args.toArray(String[]::new));
    }

    private static void assertPassed(JsonNode json, String fabric, FarmRun run) {
        for (String field : FIELDS) {
            assertTrue(json.has(field), field + " in " + json);
        }
        for (String reason : ABORT_REASONS) {
            assertTrue(json.path("aborted_by_reason").path(reason).canConvertToLong(), reason + " in " + json);
        }
        assertEquals("bank", json.path("check").asText(), json.toString());
        assertEquals(fabric, json.path("fabric").asText(), json.toString());
        assertEquals(3, json.path("nodes").asInt(), json.toString());
        assertEquals(64, json.path("accounts").asInt(), json.toString());
        assertEquals(64_000, json.path("expected_total").asLong(), json.toString());
        assertEquals(64_000, json.path("final_total").asLong(), json.toString());
        assertTrue(json.path("invariant_holds").asBoolean(false), json.toString());
        assertEquals(0, json.path("serializability_violations").asLong(-1), json.toString());
        assertEquals(0, json.path("errors").asLong(-1), json.toString());
        assertTrue(json.path("committed").asLong() > 0, json.toString());
        assertTrue(json.path("transfers").asLong() > 0, json.toString());
        assertEquals(json.path("committed").asLong(), json.path("history_transactions").asLong(),
            "every committed transaction is in the checked history: " + json);
        long byReason = 0;
        for (String reason : ABORT_REASONS) {
            byReason += json.path("aborted_by_reason").path(reason).asLong();
        }
        assertEquals(json.path("aborted").asLong(), byReason, json.toString());
        assertTrue(json.path("passed").asBoolean(false), json.toString());
        assertEquals(0, run.exitCode(), run.toString());
        assertTrue(run.stderr().contains("bank check PASSED"), run.toString());
    }

    private void assertDataRemoved() throws IOException {
        Path data = temp.resolve("data");
        if (Files.exists(data)) {
            try (Stream<Path> left = Files.list(data)) {
                assertEquals(List.of(), left.toList(), "the check removes its cluster directory");
            }
        }
    }

    @Test
    void threeLocalNodesKeepTheInvariantAndCommitAStrictlySerializableHistory() throws IOException {
        FarmRun run = check("--nodes", "3", "--fabric", "local", "--seconds", "2", "--json");

        assertPassed(run.onlyJsonLine(), "local", run);
        assertDataRemoved();
    }

    @Test
    void threeShmNodeProcessesKeepTheInvariantAndLeaveNoProcessOrFile() throws IOException {
        List<ProcessHandle> before = ProcessHandle.current().descendants().toList();

        FarmRun run = check("--nodes", "3", "--fabric", "shm", "--seconds", "3", "--json");

        assertPassed(run.onlyJsonLine(), "shm", run);
        assertTrue(run.stderr().contains("3 node processes up"), run.toString());
        assertDataRemoved();
        List<ProcessHandle> left = ProcessHandle.current().descendants()
            .filter(p -> p.isAlive() && !before.contains(p)).toList();
        assertEquals(List.of(), left, "the node processes are stopped");
    }

    @Test
    void nodeProcessesEndWhenTheCheckingProcessIsKilled() throws Exception {
        try (JvmProcess coordinator = JvmProcess.start("check bank", temp.resolve("check.log"), List.of("-Xmx256m"),
            "io.farm.bench.FarmMain", List.of("check", "bank", "--nodes", "2", "--fabric", "shm", "--seconds", "120",
                "--data-dir", temp.resolve("data").toString()))) {
            coordinator.awaitLine("check bank: 2 node processes up", Duration.ofSeconds(60));
            List<ProcessHandle> nodes = ProcessHandle.of(coordinator.pid()).orElseThrow().children().toList();
            assertEquals(2, nodes.size(), coordinator.logTail());

            coordinator.kill();

            for (ProcessHandle node : nodes) {
                node.onExit().get(30, java.util.concurrent.TimeUnit.SECONDS);
                assertFalse(node.isAlive(), "node process " + node.pid() + " outlives its killed coordinator");
            }
        }
    }

    static Stream<Arguments> badInput() {
        return Stream.of(
            Arguments.of(List.of("--nodes", "0"), "--nodes 0 is not accepted: 1..16"),
            Arguments.of(List.of("--nodes", "17"), "--nodes 17 is not accepted: 1..16"),
            Arguments.of(List.of("--seconds", "0"), "--seconds 0.0 is not accepted: more than 0, at most 600"),
            Arguments.of(List.of("--seconds", "-1"), "--seconds -1.0 is not accepted: more than 0, at most 600"),
            Arguments.of(List.of("--fabric", "tcp"), "--fabric tcp is not accepted: local or shm"),
            Arguments.of(List.of("--accounts", "1"), "--accounts 1 is not accepted with --nodes 3: 3..4096"),
            Arguments.of(List.of("--nodes", "5", "--accounts", "4"), "--accounts 4 is not accepted with --nodes 5: 5..4096"));
    }

    @ParameterizedTest
    @MethodSource("badInput")
    void badInputExitsWithStatusTwoNamingWhatIsAccepted(List<String> options, String message) {
        FarmRun run = check(options.toArray(String[]::new));

        assertEquals(2, run.exitCode(), run.toString());
        assertTrue(run.stderr().contains(message), "stderr names what is accepted: " + message + "\n" + run);
        assertTrue(run.stderr().startsWith("farm check bank: "), run.toString());
        assertEquals("", run.stdout(), run.toString());
        assertFalse(Files.exists(temp.resolve("data")), "bad input creates nothing");
    }

    @Test
    void checkWithoutANameListsTheChecks() {
        FarmRun run = FarmRun.of("check");

        assertEquals(2, run.exitCode(), run.toString());
        assertTrue(run.stderr().contains("name a check: bank"), run.toString());
        assertFalse(run.stderr().contains("bank-node"), "the node command stays hidden\n" + run);
    }
}
