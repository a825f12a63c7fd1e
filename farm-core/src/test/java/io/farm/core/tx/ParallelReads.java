package io.farm.core.tx;

import io.farm.core.object.ObjectBuffer;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Joins reads a transaction issued at once. When one read aborts the transaction, the reads
 * still outstanding then fail with an {@link IllegalStateException} ("a read completed after the
 * transaction aborted"), and {@link CompletableFuture#allOf} may report that one instead of the
 * abort, which {@link Transactions#execute} would not retry; this reports the abort.
 */
final class ParallelReads {
    private ParallelReads() {
    }

    /**
     * The buffers of {@code reads} in order once all completed; if any failed, fails with the
     * first {@link TransactionAbortedException} among the failures, or else with the first failure.
     */
    static CompletableFuture<List<ObjectBuffer>> all(List<? extends CompletionStage<ObjectBuffer>> reads) {
        List<CompletableFuture<ObjectBuffer>> futures = reads.stream().map(CompletionStage::toCompletableFuture).toList();
        return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).handle((ignored, anyFailure) -> {
            if (anyFailure == null) {
                return futures.stream().map(CompletableFuture::join).toList();
            }
            Throwable reported = null;
            for (CompletableFuture<ObjectBuffer> future : futures) {
                Throwable failure = failureOf(future);
                if (failure instanceof TransactionAbortedException) {
                    reported = failure;
                    break;
                }
                if (reported == null) {
                    reported = failure;
                }
            }
            throw reported instanceof RuntimeException runtime ? runtime : new CompletionException(reported);
        });
    }

    private static Throwable failureOf(CompletableFuture<ObjectBuffer> future) {
        if (!future.isCompletedExceptionally()) {
            return null;
        }
        Throwable failure = future.exceptionNow();
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
