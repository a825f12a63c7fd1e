package io.farm.core.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A node JVM started by a test: {@code java} of this JVM's {@code java.home}, this JVM's class
 * path (the test class path is the node class path), farm's JVM flags, a main class and its
 * arguments. Standard output and error go to a log file whose tail every failure message
 * includes. {@link #close()} kills the process forcibly and waits for it; a shutdown hook does the
 * same for any node still running when the test JVM exits, and node mains call
 * {@link ParentWatch#exitWhenParentDies()} in case the test JVM is killed. Start nodes through
 * {@link NodeJvms} so that none outlives its test.
 */
public final class NodeJvm implements AutoCloseable {
    /** The JVM flags every farm JVM needs (FFM and Agrona), as in the parent pom's {@code farm.jvm.flags}. */
    public static final List<String> FARM_JVM_FLAGS =
        List.of("--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED");
    /** Flags that keep a test node small and quick to start on a shared machine. */
    private static final List<String> SMALL_NODE_FLAGS =
        List.of("-Xmx128m", "-XX:+UseSerialGC");
    private static final int TAIL_LINES = 40;
    private static final long POLL_MILLIS = 10;
    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(() -> RUNNING.forEach(Process::destroyForcibly)));
    }

    private final String name;
    private final Process process;
    private final Path log;

    private NodeJvm(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /**
     * Starts {@code mainClass} with {@code args} in a new JVM whose output goes to {@code log}.
     *
     * @param name a name for messages, such as "node 1"
     */
    public static NodeJvm start(String name, Path log, Class<?> mainClass, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(FARM_JVM_FLAGS);
        command.addAll(SMALL_NODE_FLAGS);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(args);
        try {
            Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                // The node's stdin stays open as long as this JVM lives: ParentWatch exits on its end.
                .redirectInput(ProcessBuilder.Redirect.PIPE)
                .start();
            RUNNING.add(process);
            return new NodeJvm(name, process, log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + String.join(" ", command), e);
        }
    }

    /** The name given at start. */
    public String name() {
        return name;
    }

    /** The process id. */
    public long pid() {
        return process.pid();
    }

    /** Whether the process is still running. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits until the node prints a line that starts with {@code prefix} and returns that line.
     *
     * @throws AssertionError if the node exits first or {@code timeout} passes, with its log tail
     */
    public String awaitLine(String prefix, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (String line : lines()) {
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
            if (!process.isAlive()) {
                // It may have printed the line just before exiting.
                for (String line : lines()) {
                    if (line.startsWith(prefix)) {
                        return line;
                    }
                }
                throw new AssertionError(name + " exited with code " + process.exitValue() + " before printing '"
                    + prefix + "'" + logTail());
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(name + " did not print '" + prefix + "' within " + timeout + logTail());
            }
            sleep(POLL_MILLIS);
        }
    }

    /**
     * Waits for the node to exit and returns its exit code.
     *
     * @throws AssertionError if it still runs after {@code timeout}, with its log tail
     */
    public int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError(name + " did not exit within " + timeout + logTail());
            }
            RUNNING.remove(process);
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + name + " to exit", e);
        }
    }

    /** Kills the node forcibly (SIGKILL) and waits until it is gone. */
    public void kill() {
        process.destroyForcibly();
        boolean interrupted = false;
        while (true) {
            try {
                process.waitFor();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        RUNNING.remove(process);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The last lines of the node's log, as a message suffix. */
    public String logTail() {
        List<String> lines = lines();
        List<String> tail = lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size());
        return "\n--- last " + tail.size() + " lines of " + name + " (pid " + pid() + ", log " + log + ") ---\n"
            + String.join("\n", tail) + "\n--- end of " + name + " ---";
    }

    /** Kills the node if it still runs. */
    @Override
    public void close() {
        kill();
    }

    @Override
    public String toString() {
        return name + " (pid " + pid() + ")";
    }

    private List<String> lines() {
        try {
            return new String(Files.readAllBytes(log), StandardCharsets.UTF_8).lines().toList();
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the log of " + name, e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
