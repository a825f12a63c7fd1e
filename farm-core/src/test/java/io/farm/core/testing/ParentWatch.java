package io.farm.core.testing;

import java.io.IOException;
import java.io.InputStream;

/**
 * For node mains started by {@link NodeJvm}: ends the node when the test JVM that started it
 * ends, however it ends. The test JVM holds the write end of the node's standard input for its
 * whole life and the OS closes it when that JVM dies, even by SIGKILL; a daemon thread reads the
 * node's standard input and halts the node at end of input.
 */
public final class ParentWatch {
    /** Exit code of a node whose test JVM went away. */
    public static final int PARENT_GONE = 70;

    private ParentWatch() {
    }

    /** Starts the watch; call first thing in a node main. */
    public static void exitWhenParentDies() {
        Thread.ofPlatform().daemon().name("parent-watch").start(() -> {
            InputStream in = System.in;
            try {
                while (in.read() >= 0) {
                    // Nothing is ever sent; reading just waits for the end.
                }
            } catch (IOException e) {
                // A broken standard input means the parent is gone as well.
            }
            System.err.println("the test JVM that started this node is gone: exiting");
            Runtime.getRuntime().halt(PARENT_GONE);
        });
    }
}
