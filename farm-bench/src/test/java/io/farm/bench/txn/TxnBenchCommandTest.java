package io.farm.bench.txn;

import com.fasterxml.jackson.databind.JsonNode;
import io.farm.bench.FarmRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code farm bench txn} in this JVM (and its child processes on shm), with short workloads and few keys. */
class TxnBenchCommandTest {
    private static final List<String> RECORDS = List.of("lock", "lock_reply", "commit_backup", "commit_primary", "abort",
        "truncate");
    private static final int KEYS_PER_NODE = 500;

    @TempDir
    Path temp;

    /** Runs {@code farm bench txn} with few keys and no warm-up unless {@code options} (name, value, ...) say otherwise. */
    private FarmRun bench(String... options) {
        return FarmRun.withDefaults(List.of("bench", "txn"), Map.of("--keys-per-node", Integer.toString(KEYS_PER_NODE),
            "--warmup", "0", "--data-dir", temp.resolve("data").toString()), options);
    }

    private static long records(JsonNode workload) {
        long sum = 0;
        for (String record : RECORDS) {
            sum += workload.path("records").path(record).asLong(-1_000_000);
        }
        return sum;
    }

    /** What every workload reports, whatever the fabric; returns the workloads by name. */
    private static JsonNode assertEveryWorkload(JsonNode json, int nodes) {
        JsonNode workloads = json.path("workloads");
        assertEquals(List.of("o_1_0", "o_4_0", "o_4_2", "bank"), iterable(workloads.fieldNames()), json.toString());
        for (JsonNode w : workloads) {
            long committed = w.path("committed").asLong();
            assertTrue(committed > 0, "commits in " + w);
            assertTrue(w.path("committed_per_s").asDouble() > 0, w.toString());
            double abortRate = w.path("abort_rate").asDouble(-1);
            assertTrue(abortRate >= 0 && abortRate < 1, w.toString());
            assertTrue(w.path("p50_us").asDouble() > 0 && w.path("p50_us").asDouble() <= w.path("p99_us").asDouble(),
                w.toString());
            for (String field : List.of("one_sided_writes", "one_sided_reads", "messages", "expected_writes",
                "expected_reads", "pw", "pr")) {
                assertTrue(w.path(field).isNumber(), field + " in " + w);
            }
            JsonNode accounting = w.path("accounting");
            // Every commit-protocol record and message is one message; the only other messages of an
            // interval are the other nodes' answers to the counts call that starts it.
            assertEquals(records(w) + nodes - 1, accounting.path("message_ops").asLong(), "messages: " + w);
            assertTrue(accounting.path("write_ops").asLong() >= accounting.path("message_ops").asLong(), w.toString());
            // Each object read is one fabric read at least, each validation read one more.
            assertTrue(accounting.path("read_ops").asLong()
                >= committed * w.path("reads_per_txn").asLong() + accounting.path("validation_reads").asLong(), w.toString());
            assertEquals(w.path("records").path("lock").asLong(), w.path("records").path("lock_reply").asLong(),
                "every LOCK record is answered: " + w);
        }
        return workloads;
    }

    private static List<String> iterable(java.util.Iterator<String> names) {
        List<String> list = new ArrayList<>();
        names.forEachRemaining(list::add);
        return list;
    }

    @Test
    void aLocalRunCountsTheCommitRecordsTheFormulaPredicts() throws IOException {
        JsonNode json = bench("--fabric", "local", "--seconds", "1", "--json").successfulJsonLine();

        assertEquals("txn", json.path("benchmark").asText());
        assertEquals(3, json.path("nodes").asInt());
        assertEquals(2, json.path("backups").asInt());
        assertEquals(48, json.path("object_size").asInt());
        JsonNode workloads = assertEveryWorkload(json, 3);

        JsonNode single = workloads.path("o_1_0");
        assertEquals(0, records(single), "a read-only transaction sends no record: " + single);
        assertEquals(0, single.path("accounting").path("validation_reads").asLong(),
            "a read-only transaction of one object does not validate: " + single);
        assertEquals(0, single.path("expected_writes").asDouble());
        assertEquals(1, single.path("expected_reads").asDouble());

        JsonNode readOnly = workloads.path("o_4_0");
        assertEquals(0, records(readOnly), readOnly.toString());
        // Four keys on three nodes: node 0 is the primary of one key or of two, the others are read remotely.
        double pr = readOnly.path("pr").asDouble();
        assertTrue(pr >= 2 && pr <= 3, readOnly.toString());
        assertEquals(4 + pr, readOnly.path("expected_reads").asDouble(), 1e-4, readOnly.toString());

        // O(4,2): each committed transaction sends one COMMIT-PRIMARY per primary of a written
        // object (Pw, 1 or 2 here) and one COMMIT-BACKUP per backup of their regions; only committed
        // transactions get that far, so the counts equal the sums over committed plans exactly.
        JsonNode mixed = workloads.path("o_4_2");
        long committed = mixed.path("committed").asLong();
        long commitPrimary = mixed.path("records").path("commit_primary").asLong();
        assertEquals(mixed.path("expected_commit_primary_records").asLong(), commitPrimary, mixed.toString());
        assertEquals(mixed.path("expected_commit_backup_records").asLong(), mixed.path("records").path("commit_backup").asLong(),
            mixed.toString());
        assertTrue(commitPrimary >= committed && commitPrimary <= 2 * committed, mixed.toString());
        assertTrue(mixed.path("records").path("lock").asLong() >= commitPrimary, mixed.toString());
        assertEquals((double) commitPrimary / committed, mixed.path("pw").asDouble(), 1e-4, mixed.toString());
        assertEquals(5 * mixed.path("pw").asDouble(), mixed.path("expected_writes").asDouble(), 1e-3,
            "Pw(f+3) with f = 2: " + mixed);

        // A transfer writes two accounts on two primaries: Pw = 2, and with 3 nodes and f = 2 the
        // backups of their regions are all 3 nodes, one COMMIT-BACKUP each.
        JsonNode bank = workloads.path("bank");
        long transfers = bank.path("committed").asLong();
        assertEquals(2 * transfers, bank.path("records").path("commit_primary").asLong(), bank.toString());
        assertEquals(3 * transfers, bank.path("records").path("commit_backup").asLong(), bank.toString());
        assertEquals(10, bank.path("expected_writes").asDouble(), 1e-9, bank.toString());
        assertEquals(9, bank.path("expected_records").asDouble(), 1e-9, "LOCK, reply, COMMIT-PRIMARY on 2 primaries, 3 COMMIT-BACKUPs");

        JsonNode check = json.path("check");
        assertEquals(3 * KEYS_PER_NODE, check.path("objects").asLong(), check.toString());
        assertTrue(check.path("holds").asBoolean(), check.toString());
        assertTrue(check.path("committed_updates").asLong() >= 2 * committed, check.toString());
        assertDataRemoved();
    }

    @Test
    void onShmTheOtherNodesAreChildProcessesWhoseCountsAreCollected() throws IOException {
        List<ProcessHandle> before = ProcessHandle.current().descendants().toList();

        JsonNode json = bench("--fabric", "shm", "--seconds", "0.3", "--json").successfulJsonLine();

        assertEquals("shm", json.path("fabric").asText());
        // assertEveryWorkload finds as many LOCK replies as LOCK records: the replies of the child
        // nodes, primaries of two thirds of the keys, are counted, so their counts were collected.
        JsonNode workloads = assertEveryWorkload(json, 3);
        JsonNode mixed = workloads.path("o_4_2");
        assertEquals(mixed.path("expected_commit_primary_records").asLong(),
            mixed.path("records").path("commit_primary").asLong(), mixed.toString());
        assertTrue(json.path("check").path("holds").asBoolean(), json.toString());
        assertDataRemoved();
        List<ProcessHandle> left = ProcessHandle.current().descendants()
            .filter(p -> p.isAlive() && !before.contains(p)).toList();
        assertEquals(List.of(), left, "the node processes are stopped");
    }

    private void assertDataRemoved() throws IOException {
        Path data = temp.resolve("data");
        if (Files.exists(data)) {
            try (Stream<Path> left = Files.list(data)) {
                assertEquals(List.of(), left.toList(), "the benchmark removes its cluster directory");
            }
        }
    }

    static Stream<Arguments> badInput() {
        return Stream.of(
            Arguments.of(List.of("--fabric", "tcp"), "--fabric tcp is not accepted: local or shm"),
            Arguments.of(List.of("--nodes", "1"), "--nodes 1 is not accepted: 2..8"),
            Arguments.of(List.of("--nodes", "9"), "--nodes 9 is not accepted: 2..8"),
            Arguments.of(List.of("--window", "0"), "--window 0 is not accepted: 1..256"),
            Arguments.of(List.of("--keys-per-node", "3"), "--keys-per-node 3 is not accepted: at least 4"),
            Arguments.of(List.of("--keys-per-node", "0"), "--keys-per-node 0 is not accepted: 1..1000000"),
            Arguments.of(List.of("--seconds", "0"), "--seconds 0.0 is not accepted: more than 0, at most 600"),
            Arguments.of(List.of("--warmup", "-1"), "--warmup -1.0 is not accepted: 0..600"),
            Arguments.of(List.of("--region-size", "1000"), "region size 1000 is not accepted"),
            Arguments.of(List.of("--threads", "0"), "farm.threads"));
    }

    @ParameterizedTest
    @MethodSource("badInput")
    void badInputExitsWithStatusTwoNamingWhatIsAccepted(List<String> options, String message) {
        FarmRun run = bench(options.toArray(String[]::new));

        assertEquals(2, run.exitCode(), run.toString());
        assertTrue(run.stderr().startsWith("farm bench txn: "), run.toString());
        assertTrue(run.stderr().contains(message), "stderr names what is accepted: " + message + "\n" + run);
        assertEquals("", run.stdout(), run.toString());
        assertFalse(Files.exists(temp.resolve("data")), "bad input creates nothing");
    }
}
