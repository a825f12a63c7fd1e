package io.farm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.farm.alloc.SizeClasses;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BenchAllocCommandTest {
    @TempDir
    Path temp;

    @Test
    void printsOneJsonObjectWithTheAllocatorFiguresAndRemovesItsRegions() throws IOException {
        Path data = temp.resolve("data");
        FarmRun run = FarmRun.of("bench", "alloc", "--seconds", "0.2", "--live", "2000", "--region-size", "16777216",
            "--data-dir", data.toString(), "--json");
        assertEquals(0, run.exitCode(), run.toString());
        List<String> lines = run.stdoutLines();
        assertEquals(1, lines.size(), "stdout holds the JSON line and nothing else\n" + run);
        JsonNode json = new ObjectMapper().readTree(lines.getFirst());
        for (String figure : List.of("alloc_ops_per_s", "free_ops_per_s", "alloc_ns", "free_ns")) {
            assertTrue(json.path(figure).asDouble() > 0, figure + " in " + json);
        }
        SizeClasses.Fragmentation fragmentation = SizeClasses.measure();
        assertEquals(fragmentation.average(), json.path("avg_fragmentation").asDouble(), 1e-6, json.toString());
        assertEquals(fragmentation.maximum(), json.path("max_fragmentation").asDouble(), 1e-6, json.toString());
        // The steady state: every step frees one live object and allocates one.
        assertEquals(json.path("allocations").asLong() - 2000, json.path("frees").asLong(), json.toString());
        assertTrue(json.path("regions").asInt() >= 1, json.toString());
        try (var left = Files.list(data)) {
            assertEquals(List.of(), left.toList(), "the benchmark removes its region files");
        }
    }

    @Test
    void badOptionsAreRefusedNamingWhatIsAccepted() {
        FarmRun live = FarmRun.of("bench", "alloc", "--live", "0", "--data-dir", temp.toString());
        assertEquals(2, live.exitCode(), live.toString());
        assertTrue(live.stderr().contains("--live 0 is not accepted: 1..10000000"), live.toString());
        FarmRun seconds = FarmRun.of("bench", "alloc", "--seconds", "-1", "--data-dir", temp.toString());
        assertEquals(2, seconds.exitCode(), seconds.toString());
        assertTrue(seconds.stderr().contains("--seconds -1.0 is not accepted"), seconds.toString());
        FarmRun region = FarmRun.of("bench", "alloc", "--region-size", "1000", "--data-dir", temp.toString());
        assertEquals(2, region.exitCode(), region.toString());
        assertTrue(region.stderr().contains("region size 1000 is not accepted"), region.toString());
    }
}
