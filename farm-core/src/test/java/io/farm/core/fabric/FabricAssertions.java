package io.farm.core.fabric;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

/** Assertions on the outcome of one fabric operation, issued on the calling thread's port. */
public final class FabricAssertions {
    /** How long an operation may take to complete before the test gives up: a hang guard, not a timing. */
    private static final long AWAIT_NANOS = 10_000_000_000L;

    private FabricAssertions() {
    }

    /** An operation issued with a completion, such as {@code c -> port.read(cap, 0, 64, dst, 0, c)}. */
    @FunctionalInterface
    public interface Operation {
        void issue(Completion completion);
    }

    /** Issues the operation, polls until it completes and asserts it succeeded. */
    public static void expectSuccess(FabricPort port, Operation operation) {
        FabricException failure = complete(port, operation);
        if (failure != null) {
            throw new AssertionError("the operation failed: " + failure.getMessage(), failure);
        }
    }

    /** Issues the operation, polls until it completes and returns its PeerUnreachableException. */
    public static PeerUnreachableException failedInCompletion(FabricPort port, Operation operation) {
        FabricException failure = complete(port, operation);
        return assertInstanceOf(PeerUnreachableException.class, failure, "the operation should fail with PeerUnreachableException");
    }

    /** Asserts the operation throws {@code type}, with a message, when issued and queues no completion. */
    public static <T extends FabricException> T refused(Class<T> type, FabricPort port, Operation operation) {
        int outstanding = port.outstanding();
        T thrown = assertThrows(type, () -> operation.issue(failure -> fail("a refused operation completed")));
        assertFalse(thrown.getMessage() == null || thrown.getMessage().isBlank(), "no message");
        assertEquals(outstanding, port.outstanding(), "a refused operation queued a completion");
        return thrown;
    }

    /** Issues the operation, polls until it completes and returns its failure, or null. */
    public static FabricException complete(FabricPort port, Operation operation) {
        AtomicReference<FabricException> outcome = new AtomicReference<>();
        AtomicBoolean done = new AtomicBoolean();
        operation.issue(failure -> {
            assertFalse(done.getAndSet(true), "completed twice");
            outcome.set(failure);
        });
        long deadline = System.nanoTime() + AWAIT_NANOS;
        while (!done.get()) {
            if (port.poll(16) == 0 && System.nanoTime() - deadline > 0) {
                fail("the operation did not complete");
            }
        }
        return outcome.get();
    }
}
