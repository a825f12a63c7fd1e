package io.farm.bench.hashtable;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Reissues an operation that failed for a passing reason, at most {@value #MAX_RETRIES} times,
 * and counts the reissues. The benchmark's lookups and puts are idempotent, so a reissue is
 * always safe; the passing failures are those of an overloaded machine: a lock-free read that
 * outlived the line versions' wrap time (a GC pause or a descheduled worker), an RPC that timed
 * out, a put whose transaction gave up after its attempts. Confined to one worker: the count is
 * read after the worker's stages completed.
 */
final class Retries {
    /** Reissues of one operation before its failure stands. */
    static final int MAX_RETRIES = 10;

    private final Predicate<Throwable> passing;
    private long count;

    /** @param passing whether a failure (unwrapped from CompletionException) may be retried */
    Retries(Predicate<Throwable> passing) {
        this.passing = passing;
    }

    /** Runs {@code operation}, reissuing it on a passing failure. */
    <T> CompletionStage<T> run(Supplier<CompletionStage<T>> operation) {
        CompletableFuture<T> result = new CompletableFuture<>();
        attempt(operation, 0, result);
        return result;
    }

    /** Reissues so far. */
    long count() {
        return count;
    }

    /** One attempt: a success completes {@code result} at once; only a failure pays for a reissue. */
    private <T> void attempt(Supplier<CompletionStage<T>> operation, int retries, CompletableFuture<T> result) {
        operation.get().whenComplete((value, failure) -> {
            if (failure == null) {
                result.complete(value);
                return;
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            if (retries < MAX_RETRIES && passing.test(cause)) {
                count++;
                attempt(operation, retries + 1, result);
            } else {
                result.completeExceptionally(cause);
            }
        });
    }
}
