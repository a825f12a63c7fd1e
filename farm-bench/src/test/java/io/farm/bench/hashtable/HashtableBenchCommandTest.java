package io.farm.bench.hashtable;

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
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code farm bench hashtable} in this JVM (whose surefire arguments carry Chronicle Map's JVM
 * flags), on tiny tables: 2 shards of 64 buckets, so 460 keys for H = 8 and 345 for H = 6.
 */
class HashtableBenchCommandTest {
    private static final int SHARDS = 2;
    private static final int BUCKETS = 64;
    private static final List<String> FIGURES = List.of("lookups_per_s", "rpc_lookups_per_s", "lockfree_over_rpc",
        "chronicle_gets_per_s", "lockfree_over_chronicle");
    private static final List<String> ACCOUNTING = List.of("read_ops", "read_bytes", "write_ops", "message_ops",
        "reads_per_lookup", "writes_per_lookup", "messages_per_lookup", "local_lookups", "local_lookup_reads",
        "local_lookup_local_reads", "restarts");

    @TempDir
    Path temp;

    /** Runs {@code farm bench hashtable} with tiny defaults that {@code options} (name, value, ... or --json) override. */
    private FarmRun bench(String... options) {
        return FarmRun.withDefaults(List.of("bench", "hashtable"), Map.of("--seconds", "0.2", "--shards",
            Integer.toString(SHARDS), "--buckets-per-shard", Integer.toString(BUCKETS), "--window", "4", "--data-dir",
            temp.resolve("data").toString()), options);
    }

    private static void assertFigures(JsonNode json, String fabric, int nodes) {
        assertEquals("hashtable", json.path("benchmark").asText(), json.toString());
        assertEquals(fabric, json.path("fabric").asText(), json.toString());
        assertEquals(nodes, json.path("nodes").asInt(), json.toString());
        // 90 % of 2 shards x 64 buckets x 4 slots, every key in the table exactly once.
        assertEquals(460, json.path("keys").asInt(), json.toString());
        assertEquals(460.0 / 512, json.path("occupancy").asDouble(), 1e-5, json.toString());
        assertTrue(json.path("load_puts_per_s").asDouble() > 0, json.toString());
        long overflowPairs = json.path("pairs_in_overflow").asLong(-1);
        assertTrue(overflowPairs >= 0 && overflowPairs <= 460, json.toString());
        assertTrue(json.path("overflow_blocks").asLong(-1) >= (overflowPairs + 1) / 2, "2 slots per block: " + json);
        for (String choice : List.of("uniform", "zipf")) {
            JsonNode figures = json.path(choice);
            for (String figure : FIGURES) {
                assertTrue(figures.path(figure).isNumber() && figures.path(figure).asDouble() > 0,
                    choice + "." + figure + " in " + json);
            }
            assertRatio(figures, "lockfree_over_rpc", "lookups_per_s", "rpc_lookups_per_s");
            assertRatio(figures, "lockfree_over_chronicle", "lookups_per_s", "chronicle_gets_per_s");
            // Every lookup reads its two buckets at least once; the table's count and the fabric's
            // agree: a read is a fabric read or a local copy (of the measuring node's shards).
            double reads = figures.path("reads_per_lookup").asDouble();
            assertTrue(reads >= 1, choice + ".reads_per_lookup in " + json);
            double local = figures.path("local_reads_per_lookup").asDouble(-1);
            assertTrue(local > 0 && local < reads, "some keys' shards are on the measuring node: " + json);
            assertTrue(figures.path("fabric_reads_per_lookup").asDouble() + local >= reads - 1e-5, json.toString());
            assertTrue(figures.path("restarts").asLong(-1) >= 0, json.toString());
            long lookups = figures.path("lookups").asLong();
            JsonNode lockFree = figures.path("lockfree_accounting");
            JsonNode rpc = figures.path("rpc_accounting");
            for (String count : ACCOUNTING) {
                assertTrue(lockFree.path(count).isNumber(), choice + ".lockfree_accounting." + count + " in " + json);
                assertTrue(rpc.path(count).isNumber(), choice + ".rpc_accounting." + count + " in " + json);
            }
            assertEquals(lookups, lockFree.path("local_lookups").asLong(), "every lock-free lookup ran here: " + json);
            assertTrue(lockFree.path("read_ops").asLong() + lockFree.path("local_lookup_local_reads").asLong() >= lookups,
                json.toString());
            // Lookups of keys whose shard is elsewhere travel as messages: some, never more than one each.
            long rpcLookups = figures.path("rpc_lookups").asLong();
            assertTrue(rpc.path("message_ops").asLong() > 0, json.toString());
            assertTrue(rpc.path("messages_per_lookup").asDouble() <= 1.0 + 1e-5, json.toString());
            assertTrue(rpc.path("local_lookups").asLong() < rpcLookups, json.toString());
        }
        JsonNode local = json.path("local");
        assertTrue(local.path("keys").asInt() > 0 && local.path("keys").asInt() < json.path("keys").asInt(), json.toString());
        assertTrue(local.path("lookups_per_s").asDouble() > 0, json.toString());
        // Local lookups copy their buckets with local memory accesses: no fabric read at all.
        assertEquals(0, local.path("fabric_reads_per_lookup").asDouble(-1), json.toString());
        assertEquals(local.path("reads_per_lookup").asDouble(), local.path("local_reads_per_lookup").asDouble(), 1e-9,
            json.toString());
        assertRatio(local, "lockfree_over_chronicle", "lookups_per_s", "chronicle_gets_per_s");
        JsonNode space = json.path("space");
        assertEquals(6, space.path("neighbourhood").asInt(), json.toString());
        assertEquals(345, space.path("keys").asInt(), json.toString());
        double utilization = space.path("space_utilization").asDouble();
        assertTrue(utilization > 0 && utilization <= 1, "space_utilization in " + json);
        assertEquals(345L * (16 + 32), space.path("pair_bytes").asLong(), json.toString());
        assertEquals((double) space.path("pair_bytes").asLong() / space.path("occupied_bytes").asLong(), utilization, 1e-5,
            json.toString());
    }

    private static void assertRatio(JsonNode figures, String ratio, String numerator, String denominator) {
        double expected = figures.path(numerator).asDouble() / figures.path(denominator).asDouble();
        assertEquals(expected, figures.path(ratio).asDouble(), expected * 1e-4, ratio + " in " + figures);
    }

    private void assertDataRemoved() throws IOException {
        Path data = temp.resolve("data");
        if (Files.exists(data)) {
            try (Stream<Path> left = Files.list(data)) {
                assertEquals(List.of(), left.toList(), "the benchmark removes its cluster directory");
            }
        }
    }

    @Test
    void aShortLocalRunPrintsEveryFigureAsOneJsonLine() throws IOException {
        FarmRun run = bench("--fabric", "local", "--nodes", "2", "--json");

        assertFigures(run.successfulJsonLine(), "local", 2);
        assertTrue(run.stderr().contains("space utilization"), "the table goes to stderr\n" + run);
        assertDataRemoved();
    }

    @Test
    void shmRunsTheOtherNodesAsChildProcessesAndStopsThem() throws IOException {
        List<ProcessHandle> before = ProcessHandle.current().descendants().toList();

        JsonNode json = bench("--fabric", "shm", "--nodes", "2", "--threads", "1", "--json").successfulJsonLine();

        assertFigures(json, "shm", 2);
        assertDataRemoved();
        List<ProcessHandle> left = ProcessHandle.current().descendants()
            .filter(p -> p.isAlive() && !before.contains(p)).toList();
        assertEquals(List.of(), left, "the node processes are stopped");
    }

    static Stream<Arguments> badInput() {
        return Stream.of(
            Arguments.of(List.of("--fabric", "tcp"), "--fabric tcp is not accepted: local or shm"),
            Arguments.of(List.of("--nodes", "1"), "--nodes 1 is not accepted: 2..8"),
            Arguments.of(List.of("--threads", "0"), "--threads 0 is not accepted: 1..16"),
            Arguments.of(List.of("--window", "300"), "--window 300 is not accepted: 1..256"),
            Arguments.of(List.of("--shards", "0"), "--shards 0 is not accepted: 1..1024"),
            Arguments.of(List.of("--buckets-per-shard", "0"), "--buckets-per-shard 0 is not accepted: 1.."),
            Arguments.of(List.of("--buckets-per-shard", "100000"),
                "--buckets-per-shard 100000 is not accepted for the table of H = 8: a shard of 100000 buckets"),
            Arguments.of(List.of("--seconds", "0"), "--seconds 0.0 is not accepted: more than 0, at most 600"),
            Arguments.of(List.of("--idle", "nap"), "backoff"));
    }

    @ParameterizedTest
    @MethodSource("badInput")
    void badInputExitsWithStatusTwoNamingWhatIsAccepted(List<String> options, String message) {
        FarmRun run = bench(options.toArray(String[]::new));

        assertEquals(2, run.exitCode(), run.toString());
        assertTrue(run.stderr().contains(message), "stderr names what is accepted: " + message + "\n" + run);
        assertTrue(run.stderr().startsWith("farm bench hashtable: "), run.toString());
        assertEquals("", run.stdout(), run.toString());
        assertFalse(Files.exists(temp.resolve("data")), "bad input creates nothing");
    }
}
