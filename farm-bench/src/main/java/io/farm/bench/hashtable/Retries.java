package io.farm.bench.hashtable;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
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
        return attempt(operation, 0);
    }

    /** Reissues so far. */
    long count() {
        return count;
    }

    private <T> CompletionStage<T> attempt(Supplier<CompletionStage<T>> operation, int retries) {
        return operation.get().handle((value, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(value);
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            if (retries < MAX_RETRIES && passing.test(cause)) {
                count++;
                return attempt(operation, retries + 1);
            }
            return CompletableFuture.<T>failedFuture(cause);
        }).thenCompose(Function.identity());
    }
}
