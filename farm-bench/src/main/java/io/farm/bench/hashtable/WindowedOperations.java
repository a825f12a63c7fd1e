package io.farm.bench.hashtable;

import io.farm.core.cluster.NodeWorker;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Keeps up to {@code window} asynchronous operations in flight on one worker: each completion
 * issues the next operation, until the {@link Source} has none left. Completes, on the worker,
 * with the number of operations done, or with the first failure once the operations in flight
 * have ended. Runs entirely on the worker's thread (the operations' stages complete there), so
 * it needs no synchronization.
 */
final class WindowedOperations {
    /** The operations to run. */
    @FunctionalInterface
    interface Source {
        /** Issues the next operation on {@code worker}, or returns null when there is none left. */
        CompletionStage<?> next(NodeWorker worker);
    }

    private final NodeWorker worker;
    private final Source source;
    private final CompletableFuture<Long> done = new CompletableFuture<>();
    private int inFlight;
    private long completed;
    private boolean exhausted;
    private Throwable failure;

    private WindowedOperations(NodeWorker worker, Source source) {
        this.worker = worker;
        this.source = source;
    }

    /**
     * Starts {@code window} operations of {@code source} on {@code worker}; call on its thread.
     *
     * @return the number of operations done
     */
    static CompletionStage<Long> run(NodeWorker worker, int window, Source source) {
        WindowedOperations run = new WindowedOperations(worker, source);
        for (int i = 0; i < window && !run.exhausted && run.failure == null; i++) {
            run.issue();
        }
        run.finishIfIdle();
        return run.done;
    }

    private void issue() {
        CompletionStage<?> operation;
        try {
            operation = source.next(worker);
        } catch (RuntimeException refused) {
            failure = refused;
            return;
        }
        if (operation == null) {
            exhausted = true;
            return;
        }
        inFlight++;
        operation.whenComplete((result, error) -> {
            inFlight--;
            if (error != null) {
                if (failure == null) {
                    failure = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                }
            } else {
                completed++;
                if (!exhausted && failure == null) {
                    issue();
                }
            }
            finishIfIdle();
        });
    }

    private void finishIfIdle() {
        if (inFlight > 0 || done.isDone()) {
            return;
        }
        if (failure != null) {
            done.completeExceptionally(failure);
        } else {
            done.complete(completed);
        }
    }
}
