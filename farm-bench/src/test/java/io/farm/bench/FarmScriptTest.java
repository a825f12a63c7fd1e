package io.farm.bench;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The {@code bin/farm} launcher answers {@code --help} without building: it runs with a
 * {@code mvn} on its PATH that only records that it was called.
 */
class FarmScriptTest {
    @TempDir
    Path temp;

    private Path script;
    private Path mavenCalled;

    private record Result(int exitCode, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout ---\n" + stdout + "--- stderr ---\n" + stderr + "--- end ---";
        }
    }

    @BeforeEach
    void findScriptAndFakeMaven() throws IOException {
        assumeTrue(bashRuns(), "bash is needed to run bin/farm");
        script = farmHome().resolve("bin/farm");
        Path bin = Files.createDirectory(temp.resolve("bin"));
        mavenCalled = temp.resolve("mvn-called");
        Path mvn = bin.resolve("mvn");
        Files.writeString(mvn, "#!/usr/bin/env bash\necho \"$@\" >> '" + mavenCalled + "'\nexit 1\n");
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private static boolean bashRuns() {
        try {
            return new ProcessBuilder("bash", "-c", "true").start().waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The project's root: the nearest directory up from the working directory holding bin/farm. */
    private static Path farmHome() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("bin/farm"))) {
                return dir;
            }
        }
        throw new AssertionError("no bin/farm above " + Path.of("").toAbsolutePath());
    }

    private Result farm(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bash", script.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command)
            .redirectOutput(temp.resolve("stdout").toFile())
            .redirectError(temp.resolve("stderr").toFile());
        builder.environment().put("PATH", temp.resolve("bin") + File.pathSeparator + System.getenv("PATH"));
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process process = builder.start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError("bin/farm " + String.join(" ", args) + " did not finish within 60 s");
        }
        return new Result(process.exitValue(), Files.readString(temp.resolve("stdout"), StandardCharsets.UTF_8),
            Files.readString(temp.resolve("stderr"), StandardCharsets.UTF_8));
    }

    @Test
    void helpListsTheCommandsWithoutBuilding() throws Exception {
        Result result = farm("--help");

        assertEquals(0, result.exitCode(), result.toString());
        assertTrue(result.stdout().startsWith("Usage: bin/farm COMMAND"), result.toString());
        for (String command : List.of("demo", "test", "bench", "node", "cluster", "build")) {
            assertTrue(result.stdout().lines().anyMatch(l -> l.strip().startsWith(command + " ")), command + "\n" + result);
        }
        assertFalse(Files.exists(mavenCalled), "--help runs no Maven");
    }

    @Test
    void noArgumentsPrintTheUsage() throws Exception {
        Result result = farm();

        assertEquals(0, result.exitCode(), result.toString());
        assertTrue(result.stdout().startsWith("Usage: bin/farm COMMAND"), result.toString());
        assertFalse(Files.exists(mavenCalled), "the usage runs no Maven");
    }

    @Test
    void testHelpDescribesTheTestCommandWithoutBuilding() throws Exception {
        Result result = farm("test", "--help");

        assertEquals(0, result.exitCode(), result.toString());
        assertTrue(result.stdout().startsWith("Usage: bin/farm test"), result.toString());
        assertTrue(result.stdout().contains("mvn verify"), result.toString());
        assertEquals("", result.stderr(), "nothing is built: " + result);
        assertFalse(Files.exists(mavenCalled), "test --help runs no Maven");
    }
}
