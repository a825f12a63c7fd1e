package io.farm.bench.hashtable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.farm.core.cluster.JvmProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code farm bench hashtable} run as a process of its own, with farm's JVM flags only (not Chronicle Map's). */
class HashtableBenchProcessTest {
    @TempDir
    Path temp;

    @Test
    void aKilledBenchmarkLeavesNoNodeProcessAndNoFile() throws Exception {
        Path data = temp.resolve("data");
        try (JvmProcess bench = JvmProcess.start("hashtable benchmark", temp.resolve("bench.log"), List.of("-Xmx512m"),
            "io.farm.bench.FarmMain", List.of("bench", "hashtable", "--fabric", "shm", "--nodes", "3", "--threads", "1",
                "--shards", "2", "--buckets-per-shard", "64", "--seconds", "60", "--data-dir", data.toString()))) {
            // Loaded: both node processes serve, the measuring node is in the middle of its phases.
            bench.awaitLine("loaded", Duration.ofSeconds(120));
            List<ProcessHandle> nodes = ProcessHandle.of(bench.pid()).orElseThrow().descendants().toList();
            assertEquals(2, nodes.size(), "two node processes: " + nodes + bench.logTail());
            try (Stream<Path> files = Files.list(data)) {
                assertFalse(files.toList().isEmpty(), "the cluster directory is in use");
            }

            bench.kill();

            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while ((nodes.stream().anyMatch(ProcessHandle::isAlive) || !empty(data)) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(List.of(), nodes.stream().filter(ProcessHandle::isAlive).toList(), "the node processes ended");
            assertTrue(empty(data), "the node processes deleted the cluster directory, node 0's files included");
        }
    }

    @Test
    void withoutChronicleMapsFlagsTheReportSaysWhyAndHasNoChronicleFigures() throws Exception {
        Path log = temp.resolve("bench.log");
        try (JvmProcess bench = JvmProcess.start("hashtable benchmark", log, List.of("-Xmx512m"), "io.farm.bench.FarmMain",
            List.of("bench", "hashtable", "--nodes", "2", "--threads", "1", "--shards", "2", "--buckets-per-shard", "64",
                "--seconds", "0.1", "--data-dir", temp.resolve("data").toString(), "--json"))) {
            assertEquals(0, bench.awaitExit(Duration.ofSeconds(120)), bench.logTail());
            List<String> lines = Files.readAllLines(log);
            JsonNode json = new ObjectMapper().readTree(lines.getLast());
            assertTrue(json.path("chronicle_error").asText().contains("Exception"), json.toString());
            for (String choice : List.of("uniform", "zipf")) {
                assertTrue(json.path(choice).path("lookups_per_s").asDouble() > 0, json.toString());
                assertTrue(json.path(choice).path("chronicle_gets_per_s").isMissingNode(), "no Chronicle figure: " + json);
                assertTrue(json.path(choice).path("lockfree_over_chronicle").isMissingNode(), json.toString());
            }
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("Chronicle Map did not run: ")), bench.logTail());
        }
    }

    private static boolean empty(Path data) throws IOException {
        try (Stream<Path> left = Files.list(data)) {
            return left.findAny().isEmpty();
        } catch (java.nio.file.NoSuchFileException gone) {
            return true;
        }
    }
}
