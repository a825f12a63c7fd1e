package io.farm.bench;

import com.fasterxml.jackson.databind.JsonNode;
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

/** {@code farm bench fabric} in this JVM, with tiny phases and a 1 MiB region. */
class BenchFabricCommandTest {
    private static final List<String> FIGURES = List.of("one_sided_ops_per_s", "rpc_ops_per_s", "raw_copy_ops_per_s",
        "one_sided_over_rpc", "one_sided_over_raw", "one_sided_p50_us", "one_sided_p99_us", "rpc_p50_us", "rpc_p99_us");
    private static final List<String> ACCOUNTING = List.of("read_ops", "read_bytes", "write_ops", "write_bytes",
        "message_ops", "message_bytes");

    @TempDir
    Path temp;

    /** Runs {@code farm bench fabric} with tiny defaults that {@code options} (name, value, ...) override. */
    private FarmRun bench(String... options) {
        return FarmRun.withDefaults(List.of("bench", "fabric"), Map.of("--seconds", "0.2", "--region-size", "1048576",
            "--data-dir", temp.resolve("data").toString()), options);
    }

    private static void assertFigures(JsonNode json, String fabric, int size) {
        assertEquals(fabric, json.path("fabric").asText(), json.toString());
        assertEquals(size, json.path("size").asInt(-1), json.toString());
        for (String figure : FIGURES) {
            assertTrue(json.path(figure).isNumber() && json.path(figure).asDouble() > 0, figure + " in " + json);
        }
        for (String phase : List.of("one_sided_accounting", "rpc_accounting")) {
            for (String count : ACCOUNTING) {
                assertTrue(json.path(phase).path(count).canConvertToLong(), phase + "." + count + " in " + json);
            }
        }
        assertTrue(json.path("one_sided_p50_us").asDouble() <= json.path("one_sided_p99_us").asDouble(), json.toString());
        assertTrue(json.path("rpc_p50_us").asDouble() <= json.path("rpc_p99_us").asDouble(), json.toString());
        assertRatio(json, "one_sided_over_rpc", "one_sided_ops_per_s", "rpc_ops_per_s");
        assertRatio(json, "one_sided_over_raw", "one_sided_ops_per_s", "raw_copy_ops_per_s");

        long oneSidedOps = json.path("one_sided_ops").asLong();
        JsonNode oneSided = json.path("one_sided_accounting");
        assertTrue(oneSidedOps > 0, json.toString());
        assertEquals(oneSidedOps, oneSided.path("read_ops").asLong(), "one fabric read per one-sided read: " + json);
        assertEquals(oneSidedOps * size, oneSided.path("read_bytes").asLong(), json.toString());
        assertEquals(0, oneSided.path("write_ops").asLong(), json.toString());
        assertEquals(0, oneSided.path("message_ops").asLong(), json.toString());

        long rpcOps = json.path("rpc_ops").asLong();
        JsonNode rpc = json.path("rpc_accounting");
        assertTrue(rpcOps > 0, json.toString());
        assertTrue(rpc.path("message_ops").asLong() >= rpcOps, "a request message per rpc read: " + json);
        assertTrue(rpc.path("write_ops").asLong() >= rpc.path("message_ops").asLong(), "messages travel as writes: " + json);
        assertEquals(0, rpc.path("read_ops").asLong(), "no one-sided reads in the rpc phase: " + json);
    }

    /** The ratio printed with six significant digits matches the rates it is made of. */
    private static void assertRatio(JsonNode json, String ratio, String numerator, String denominator) {
        double expected = json.path(numerator).asDouble() / json.path(denominator).asDouble();
        double printed = json.path(ratio).asDouble();
        assertEquals(expected, printed, Math.abs(expected) * 1e-4, ratio + " in " + json);
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
    void localPrintsOneConsistentJsonObjectAsItsOnlyStdoutLine() throws IOException {
        JsonNode json = bench("--fabric", "local", "--json").successfulJsonLine();

        assertFigures(json, "local", 64);
        assertDataRemoved();
    }

    @Test
    void localWithEightKibReads() throws IOException {
        JsonNode json = bench("--fabric", "local", "--size", "8192", "--json").successfulJsonLine();

        assertFigures(json, "local", 8192);
        assertDataRemoved();
    }

    @Test
    void shmRunsTheServerAsAChildProcess() throws IOException {
        List<ProcessHandle> before = ProcessHandle.current().descendants().toList();

        JsonNode json = bench("--fabric", "shm", "--json").successfulJsonLine();

        assertFigures(json, "shm", 64);
        assertDataRemoved();
        List<ProcessHandle> left = ProcessHandle.current().descendants()
            .filter(p -> p.isAlive() && !before.contains(p)).toList();
        assertEquals(List.of(), left, "the benchmark server process is stopped");
    }

    @Test
    void withoutJsonStdoutStaysEmpty() throws IOException {
        FarmRun run = bench("--fabric", "local", "--seconds", "0.05");

        assertEquals(0, run.exitCode(), run.toString());
        assertEquals("", run.stdout(), "the figures go to stderr");
        assertTrue(run.stderr().contains("one-sided reads") && run.stderr().contains("accounting, rpc phase"), run.toString());
        assertDataRemoved();
    }

    static Stream<Arguments> badInput() {
        return Stream.of(
            Arguments.of(List.of("--size", "0"), "--size 0 is not accepted: 1..8192"),
            Arguments.of(List.of("--size", "9000"), "--size 9000 is not accepted: 1..8192"),
            Arguments.of(List.of("--fabric", "tcp"), "--fabric tcp is not accepted: local or shm"),
            Arguments.of(List.of("--depth", "0"), "--depth 0 is not accepted: 1..1024"),
            Arguments.of(List.of("--seconds", "0"), "--seconds 0.0 is not accepted: more than 0, at most 600"),
            Arguments.of(List.of("--region-size", "1000"), "region size 1000 is not accepted: it must be a power of two"),
            Arguments.of(List.of("--size", "8192", "--region-size", "4096"),
                "--size 8192 is not accepted with --region-size 4096: a read must fit in the region, so at most 4096"),
            Arguments.of(List.of("--idle", "nap"), "backoff"));
    }

    @ParameterizedTest
    @MethodSource("badInput")
    void badInputExitsWithStatusTwoNamingWhatIsAccepted(List<String> options, String message) {
        FarmRun run = bench(options.toArray(String[]::new));

        assertEquals(2, run.exitCode(), run.toString());
        assertTrue(run.stderr().contains(message), "stderr names what is accepted: " + message + "\n" + run);
        assertTrue(run.stderr().startsWith("farm bench fabric: "), run.toString());
        assertEquals("", run.stdout(), run.toString());
        assertFalse(Files.exists(temp.resolve("data")), "bad input creates nothing");
    }

    @Test
    void anUnknownBenchmarkIsAUsageErrorListingTheBenchmarks() {
        FarmRun run = FarmRun.of("bench", "nosuch");

        assertEquals(2, run.exitCode(), run.toString());
        assertTrue(run.stderr().contains("Unmatched argument at index 1: 'nosuch'"), run.toString());
        assertTrue(run.stderr().lines().anyMatch(l -> l.strip().startsWith("fabric ")), "the usage lists fabric\n" + run);
        assertFalse(run.stderr().contains("fabric-server"), "the internal server command stays hidden\n" + run);
    }

    @Test
    void benchWithoutANameListsTheBenchmarks() {
        FarmRun run = FarmRun.of("bench");

        assertEquals(2, run.exitCode(), run.toString());
        assertTrue(run.stderr().contains("name a benchmark: fabric"), run.toString());
    }
}
