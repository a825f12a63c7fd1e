package io.farm.core.testing;

import io.farm.core.cluster.JvmProcess;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A node JVM started by a test: a {@link JvmProcess} (this JVM's {@code java.home} and class
 * path, which is the node class path, farm's JVM flags) kept small, whose failures are test
 * failures ({@link AssertionError}) with the node's log tail. {@link #close()} kills it; node
 * mains call {@link ParentWatch#exitWhenParentDies()} in case the test JVM is killed. Start nodes
 * through {@link NodeJvms} so that none outlives its test.
 */
public final class NodeJvm implements AutoCloseable {
    /** The JVM flags every farm JVM needs (FFM and Agrona), as in the parent pom's {@code farm.jvm.flags}. */
    public static final List<String> FARM_JVM_FLAGS = JvmProcess.JVM_FLAGS;
    /** Flags that keep a test node small and quick to start on a shared machine. */
    private static final List<String> SMALL_NODE_FLAGS = List.of("-Xmx128m", "-XX:+UseSerialGC");

    private final JvmProcess process;

    private NodeJvm(JvmProcess process) {
        this.process = process;
    }

    /**
     * Starts {@code mainClass} with {@code args} in a new JVM whose output goes to {@code log}.
     *
     * @param name a name for messages, such as "node 1"
     */
    public static NodeJvm start(String name, Path log, Class<?> mainClass, List<String> args) {
        return new NodeJvm(JvmProcess.start(name, log, SMALL_NODE_FLAGS, mainClass.getName(), args));
    }

    /** The name given at start. */
    public String name() {
        return process.name();
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
        try {
            return process.awaitLine(prefix, timeout);
        } catch (IllegalStateException e) {
            throw new AssertionError(e.getMessage(), e);
        }
    }

    /**
     * Waits for the node to exit and returns its exit code.
     *
     * @throws AssertionError if it still runs after {@code timeout}, with its log tail
     */
    public int awaitExit(Duration timeout) {
        try {
            return process.awaitExit(timeout);
        } catch (IllegalStateException e) {
            throw new AssertionError(e.getMessage(), e);
        }
    }

    /** Kills the node forcibly (SIGKILL) and waits until it is gone. */
    public void kill() {
        process.kill();
    }

    /** The last lines of the node's log, as a message suffix. */
    public String logTail() {
        return process.logTail();
    }

    /** Kills the node if it still runs. */
    @Override
    public void close() {
        kill();
    }

    @Override
    public String toString() {
        return process.toString();
    }
}
