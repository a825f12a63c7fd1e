package io.farm.core.node;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The blocking facade for code outside the workers (tests, benchmark client threads, virtual
 * threads): wait for a {@link CompletionStage} returned by the continuation API. A worker must
 * never block, since it runs the event loop that completes the operations; so every method here
 * throws {@link IllegalStateException} when called on a worker thread.
 */
public final class Blocking {
    private Blocking() {
    }

    /**
     * Throws if the calling thread is a worker thread. Blocking entry points call it first.
     *
     * @param operation what the caller was about to do, for the message (e.g. "Blocking.await")
     * @throws IllegalStateException on a worker thread, saying to use the continuation API
     */
    public static void requireOffWorker(String operation) {
        Worker worker = Worker.current();
        if (worker != null) {
            throw new IllegalStateException(operation + " would block worker " + worker.name()
                + ": a worker must not block, it runs the event loop that completes the operation. Use the continuation"
                + " API instead: compose the CompletionStage (thenApply, thenCompose, whenComplete) rather than wait for it");
        }
    }

    /**
     * Waits for {@code stage} and returns its value.
     *
     * @throws IllegalStateException  on a worker thread
     * @throws RuntimeException       the stage's failure, unwrapped from {@link CompletionException}
     *                                and {@link ExecutionException}, if it is unchecked (an
     *                                {@link Error} is rethrown as is); a checked failure comes
     *                                wrapped in a {@link CompletionException}
     * @throws CompletionException    with an {@link InterruptedException} cause if the waiting
     *                                thread is interrupted (its interrupt status is set again)
     */
    public static <T> T await(CompletionStage<T> stage) {
        requireOffWorker("Blocking.await");
        CompletableFuture<T> future = mirror(stage);
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw rethrow(e);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    /**
     * Waits at most {@code timeout} for {@code stage} and returns its value; fails as
     * {@link #await(CompletionStage)} does.
     *
     * @throws TimeoutException if the stage is not complete within {@code timeout}
     */
    public static <T> T await(CompletionStage<T> stage, Duration timeout) throws TimeoutException {
        requireOffWorker("Blocking.await");
        Objects.requireNonNull(timeout, "timeout");
        CompletableFuture<T> future = mirror(stage);
        try {
            return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw rethrow(e);
        } catch (InterruptedException e) {
            throw interrupted(e);
        } catch (TimeoutException e) {
            throw new TimeoutException("the operation did not complete within " + timeout);
        }
    }

    /**
     * A future with the stage's outcome. Waiting on the stage itself is not always possible: a
     * minimal stage is a CompletableFuture whose get() throws, and other stages have no get().
     */
    private static <T> CompletableFuture<T> mirror(CompletionStage<T> stage) {
        Objects.requireNonNull(stage, "stage");
        CompletableFuture<T> future = new CompletableFuture<>();
        stage.whenComplete((value, failure) -> {
            if (failure == null) {
                future.complete(value);
            } else {
                future.completeExceptionally(failure);
            }
        });
        return future;
    }

    private static RuntimeException rethrow(ExecutionException e) {
        Throwable cause = e;
        while ((cause instanceof ExecutionException || cause instanceof CompletionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof RuntimeException unchecked) {
            throw unchecked;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        throw new CompletionException(cause);
    }

    private static CompletionException interrupted(InterruptedException e) {
        Thread.currentThread().interrupt();
        return new CompletionException("interrupted while waiting for an operation to complete", e);
    }
}
