package io.farm.bench;

import io.farm.core.config.ClusterConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code farm cluster} and {@code farm node}: node processes of a static cluster. */
class ClusterCommandTest {
    private static final Pattern NODE_PID = Pattern.compile("^\\s+node (\\d+)\\s+pid (\\d+)$");

    @TempDir
    Path temp;

    private static void assertNothingIn(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(), files.toList(), "bad input creates nothing");
        }
    }

    @Test
    void clusterStartsItsNodeProcessesAndLeavesNoProcessOrFileBehind() {
        List<ProcessHandle> before = ProcessHandle.current().descendants().toList();

        FarmRun run = FarmRun.of("cluster", "--nodes", "2", "--fabric", "shm", "--seconds", "1", "--region-size", "4194304",
            "--name", "two", "--data-dir", temp.toString());

        assertEquals(0, run.exitCode(), run.toString());
        assertTrue(run.stderr().contains("cluster two: 2 node processes up"), run.toString());
        int nodes = 0;
        for (String line : run.stderr().lines().toList()) {
            Matcher node = NODE_PID.matcher(line);
            if (node.matches()) {
                long pid = Long.parseLong(node.group(2));
                assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "node process " + pid + " is left");
                nodes++;
            }
        }
        assertEquals(2, nodes, "the pid of each node is printed\n" + run);
        List<ProcessHandle> left = ProcessHandle.current().descendants()
            .filter(p -> p.isAlive() && !before.contains(p)).toList();
        assertEquals(List.of(), left, "no node process outlives the command");
        assertFalse(Files.exists(temp.resolve("two")), "the cluster's data directory is removed\n" + run);
    }

    @Test
    void clusterRefusesTheLocalFabric() throws IOException {
        FarmRun run = FarmRun.of("cluster", "--fabric", "local", "--data-dir", temp.toString());

        assertEquals(2, run.exitCode(), run.toString());
        assertTrue(run.stderr().contains("--fabric local is not accepted here") && run.stderr().contains("needs shm"),
            run.toString());
        assertNothingIn(temp);
    }

    @Test
    void clusterRefusesAnEmptyCluster() throws IOException {
        FarmRun run = FarmRun.of("cluster", "--nodes", "0", "--data-dir", temp.toString());

        assertEquals(2, run.exitCode(), run.toString());
        assertTrue(run.stderr().contains("a cluster has 1..65536 members"), run.toString());
        assertNothingIn(temp);
    }

    @Test
    void aNodeProcessRefusesAnIdOutsideTheClusterBeforeCreatingFiles() {
        Path configFile = temp.resolve("shm.properties");
        ClusterConfig.builder().name("shm-two").memberCount(2).fabric("shm").dataDir(temp.resolve("data")).build()
            .store(configFile);

        FarmRun run = FarmRun.of("node", "--config", configFile.toString(), "--id", "2");

        assertEquals(2, run.exitCode(), run.toString());
        assertTrue(run.stderr().contains("--id 2 is not accepted: cluster shm-two has members 0..1"), run.toString());
        assertFalse(Files.exists(temp.resolve("data")), "bad input creates nothing");
    }

    @Test
    void aNodeProcessNeedsAnShmCluster() {
        Path configFile = temp.resolve("local.properties");
        ClusterConfig.builder().name("local-one").memberCount(2).fabric("local").dataDir(temp.resolve("data")).build()
            .store(configFile);

        FarmRun run = FarmRun.of("node", "--config", configFile.toString(), "--id", "0");

        assertEquals(2, run.exitCode(), run.toString());
        assertTrue(run.stderr().contains("uses the local fabric") && run.stderr().contains("needs fabric=shm"), run.toString());
        assertFalse(Files.exists(temp.resolve("data")), "bad input creates nothing");
    }
}
