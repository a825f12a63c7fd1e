package io.farm.core.node;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BlockingTest {
    private final Worker worker = Worker.builder("blocking-test").start();

    @AfterEach
    void close() {
        worker.close();
    }

    @Test
    void awaitOnAWorkerThreadThrowsSayingToUseTheContinuationApi() throws TimeoutException {
        CompletableFuture<String> never = new CompletableFuture<>();
        CompletableFuture<String> message = worker.submit(() -> {
            try {
                Blocking.await(never);
                return CompletableFuture.completedFuture("await returned on a worker");
            } catch (IllegalStateException expected) {
                return CompletableFuture.completedFuture(expected.getMessage());
            }
        });
        String text = Blocking.await(message, Duration.ofSeconds(WorkerTest.LIVENESS_SECONDS));
        assertTrue(text.contains("would block worker blocking-test"), text);
        assertTrue(text.contains("must not block"), text);
        assertTrue(text.contains("continuation API"), text);
    }

    @Test
    void awaitWithTimeoutOnAWorkerThreadThrowsToo() throws TimeoutException {
        CompletableFuture<Boolean> refused = worker.submit(() -> {
            try {
                Blocking.await(CompletableFuture.completedFuture(1), Duration.ofSeconds(1));
                return CompletableFuture.completedFuture(false);
            } catch (IllegalStateException | TimeoutException e) {
                return CompletableFuture.completedFuture(e instanceof IllegalStateException);
            }
        });
        assertTrue(Blocking.await(refused, Duration.ofSeconds(WorkerTest.LIVENESS_SECONDS)));
    }

    @Test
    void awaitOffWorkerReturnsTheValue() {
        assertEquals("v", Blocking.await(worker.submit(() -> CompletableFuture.completedFuture("v"))));
    }

    @Test
    void awaitAcceptsAStageThatIsNotACompletableFuture() {
        CompletableFuture<Integer> future = new CompletableFuture<>();
        worker.execute(() -> future.complete(42));
        assertEquals(42, Blocking.await(future.minimalCompletionStage()));
    }

    @Test
    void awaitRethrowsAnUncheckedCauseUnwrapped() {
        IllegalArgumentException cause = new IllegalArgumentException("no such key");
        CompletableFuture<Object> failed = CompletableFuture.failedFuture(cause);
        assertSame(cause, assertThrows(IllegalArgumentException.class, () -> Blocking.await(failed)));
        // A dependent stage fails with a CompletionException around the cause: unwrapped too.
        CompletableFuture<Object> dependent = failed.thenApply(v -> v);
        assertSame(cause, assertThrows(IllegalArgumentException.class, () -> Blocking.await(dependent)));
        assertSame(cause, assertThrows(IllegalArgumentException.class,
            () -> Blocking.await(dependent, Duration.ofSeconds(1))));
    }

    @Test
    void awaitWrapsACheckedCauseInACompletionException() {
        IOException cause = new IOException("disk");
        CompletionException thrown = assertThrows(CompletionException.class,
            () -> Blocking.await(CompletableFuture.failedFuture(cause)));
        assertSame(cause, thrown.getCause());
    }

    @Test
    void awaitWithTimeoutThrowsTimeoutExceptionWhenTheStageIsNotDone() {
        TimeoutException timeout = assertThrows(TimeoutException.class,
            () -> Blocking.await(new CompletableFuture<>(), Duration.ofMillis(10)));
        assertTrue(timeout.getMessage().contains("PT0.01S"), timeout.getMessage());
    }

    @Test
    void anInterruptedAwaitThrowsAndKeepsTheInterruptStatus() {
        Thread.currentThread().interrupt();
        try {
            CompletionException thrown = assertThrows(CompletionException.class,
                () -> Blocking.await(new CompletableFuture<>()));
            assertInstanceOf(InterruptedException.class, thrown.getCause());
            assertTrue(Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();
        }
    }
}
