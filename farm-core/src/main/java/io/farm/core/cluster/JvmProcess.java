package io.farm.core.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM running a main class of this JVM's classpath with farm's JVM flags (a node
 * process, a benchmark server, a test's peer), its output going to a log file. {@link #close()} stops it (SIGTERM, then
 * SIGKILL after a grace period) and waits, so no process outlives its owner.
 */
public final class JvmProcess implements AutoCloseable {
    /** JVM flags every farm JVM needs: FFM and Agrona. */
    public static final List<String> JVM_FLAGS = List.of(
        "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED");
    private static final String READY_PREFIX = "READY ";

    private final String name;
    private final Process process;
    private final Path log;

    private JvmProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /**
     * Starts {@code mainClass args...} in a new JVM with this JVM's classpath.
     *
     * @param name      a name for messages
     * @param log       where stdout and stderr go
     * @param jvmArgs   extra JVM arguments (heap size, ...)
     * @param mainClass the class to run
     * @param args      its arguments
     */
    public static JvmProcess start(String name, Path log, List<String> jvmArgs, String mainClass, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_FLAGS);
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.addAll(args);
        try {
            Files.createDirectories(log.getParent());
            Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.PIPE)
                .start();
            return new JvmProcess(name, process, log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + String.join(" ", command), e);
        }
    }

    /** Prints the line a child announces itself with once it serves: {@code READY <what>}. */
    public static void announceReady(String what) {
        System.out.println(READY_PREFIX + what);
        System.out.flush();
    }

    /**
     * Waits until the child printed its ready line.
     *
     * @throws IllegalStateException if it exits or does not get ready in time, with its log's tail
     */
    public void awaitReady(Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            if (logText().lines().anyMatch(l -> l.startsWith(READY_PREFIX))) {
                return;
            }
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with status " + process.exitValue()
                    + " before it was ready; its log (" + log + ") ends with:\n" + logTail());
            }
            sleep(20);
        }
        throw new IllegalStateException(name + " was not ready within " + timeout + "; its log (" + log
            + ") ends with:\n" + logTail());
    }

    /** Whether the process is running. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** The operating system's process id. */
    public long pid() {
        return process.pid();
    }

    /** The name given at start. */
    public String name() {
        return name;
    }

    /** The last lines of the child's log. */
    public String logTail() {
        List<String> lines = logText().lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }

    private String logText() {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException | UncheckedIOException e) {
            return "";
        }
    }

    /** Stops the child: SIGTERM (its shutdown hooks run), SIGKILL after 10 s; waits for it. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a node process", e);
        }
    }
}
