package io.farm.core.cluster;

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
 * A child JVM running a main class of this JVM's classpath with farm's JVM flags (a node
 * process, a benchmark server, a test's peer), its output going to a log file whose tail every
 * failure message includes. Its standard input is a pipe that stays open while this JVM lives,
 * so a child that watches it (see {@code --exit-on-stdin-end}) ends with its parent even when the
 * parent is killed. {@link #close()} stops it (SIGTERM, then SIGKILL after a grace period) and
 * waits; a shutdown hook kills children still running when this JVM exits.
 */
public final class JvmProcess implements AutoCloseable {
    /** JVM flags every farm JVM needs: FFM and Agrona. */
    public static final List<String> JVM_FLAGS = List.of(
        "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED");
    private static final String READY_PREFIX = "READY ";
    private static final int TAIL_LINES = 30;
    private static final long POLL_MILLIS = 10;
    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("farm-child-reaper")
            .unstarted(() -> RUNNING.forEach(Process::destroyForcibly)));
    }

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
            Files.createDirectories(log.toAbsolutePath().getParent());
            Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.PIPE)
                .start();
            RUNNING.add(process);
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
     * Waits until the child printed its ready line ({@link #announceReady}).
     *
     * @throws IllegalStateException if it exits or does not get ready in time, with its log's tail
     */
    public void awaitReady(Duration timeout) {
        awaitLine(READY_PREFIX, timeout);
    }

    /**
     * Waits until the child prints a line starting with {@code prefix} and returns that line.
     *
     * @throws IllegalStateException if it exits first or {@code timeout} passes, with its log's tail
     */
    public String awaitLine(String prefix, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            boolean exited = !process.isAlive();
            // Read after checking for exit: a line printed just before exiting is still found.
            for (String line : lines()) {
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
            if (exited) {
                throw new IllegalStateException(name + " exited with status " + process.exitValue() + " before printing '"
                    + prefix + "'" + logTail());
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(name + " did not print '" + prefix + "' within " + timeout + logTail());
            }
            sleep(POLL_MILLIS);
        }
    }

    /**
     * Waits for the child to exit and returns its exit status.
     *
     * @throws IllegalStateException if it still runs after {@code timeout}, with its log's tail
     */
    public int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(name + " did not exit within " + timeout + logTail());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + name + " to exit", e);
        }
        RUNNING.remove(process);
        return process.exitValue();
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

    /** The last lines of the child's log, as a message suffix. */
    public String logTail() {
        List<String> lines = lines();
        List<String> tail = lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size());
        return "\n--- last " + tail.size() + " lines of " + name + " (pid " + pid() + ", log " + log + ") ---\n"
            + String.join("\n", tail) + "\n--- end of " + name + " ---";
    }

    /** Kills the child at once (SIGKILL) and waits until it is gone. */
    public void kill() {
        process.destroyForcibly();
        waitUninterruptibly();
    }

    /** Stops the child: SIGTERM (its shutdown hooks run), SIGKILL after 10 s; waits for it. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        waitUninterruptibly();
    }

    @Override
    public String toString() {
        return name + " (pid " + pid() + ")";
    }

    private void waitUninterruptibly() {
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
            throw new IllegalStateException("interrupted while waiting for a child JVM", e);
        }
    }
}
