package io.farm.core.testing;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Waits bounded by a generous liveness limit, and capture of what workers report, for cluster tests. */
public final class Liveness {
    /** Generous bound for liveness waits: a wait that hits it means the behaviour is broken. */
    public static final long LIVENESS_SECONDS = 30;

    private Liveness() {
    }

    /** Waits for a future that must complete; fails after the liveness bound. */
    public static <T> T await(CompletableFuture<T> future) throws Exception {
        return future.get(LIVENESS_SECONDS, TimeUnit.SECONDS);
    }

    /** Waits until {@code condition} holds; fails with {@code what} after the liveness bound. */
    public static void awaitCondition(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIVENESS_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + LIVENESS_SECONDS + " s: " + what);
            }
            Thread.sleep(1);
        }
    }

    /** Runs {@code action} with System.err captured and returns what was printed on it. */
    public static String capturingStandardError(ThrowingRunnable action) throws Exception {
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            action.run();
        } finally {
            System.setErr(stderr);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    /** An action that may throw. */
    @FunctionalInterface
    public interface ThrowingRunnable {
        void run() throws Exception;
    }
}
