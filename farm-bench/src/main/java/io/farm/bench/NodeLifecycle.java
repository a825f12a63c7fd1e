package io.farm.bench;

import io.farm.core.cluster.Node;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.CountDownLatch;

/**
 * How a node process lives: it serves until it gets SIGTERM/SIGINT or, when started by another
 * farm process, until its standard input closes (the parent died or closed the pipe); then it
 * closes the node cleanly (workers stopped, registrations withdrawn, files deleted), so no
 * process or file is left behind even when the parent is killed.
 */
public final class NodeLifecycle {
    private NodeLifecycle() {
    }

    /**
     * Blocks until the process is asked to stop, then closes {@code node}.
     *
     * @param exitOnStdinEnd also stop when standard input ends (for children of a farm process)
     */
    public static void serveUntilStopped(Node node, boolean exitOnStdinEnd) {
        CountDownLatch closed = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            closeQuietly(node);
            closed.countDown();
        }, "farm-node" + node.id() + "-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        if (exitOnStdinEnd) {
            Thread.ofPlatform().daemon().name("farm-node" + node.id() + "-stdin").start(() -> {
                try (InputStream in = System.in) {
                    while (in.read() >= 0) {
                        // Input is ignored: end of stream is the signal.
                    }
                } catch (IOException e) {
                    // A broken pipe means the same as end of stream.
                }
                System.exit(0);
            });
        }
        try {
            closed.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(Node node) {
        try {
            System.err.println("farm: node " + node.id() + " stopping; it issued " + node.stats());
            node.close();
        } catch (RuntimeException e) {
            System.err.println("farm: node " + node.id() + " did not close cleanly: " + e);
        }
    }
}
