package io.farm.bench.txn;

import io.farm.core.cluster.NodeWorker;
import io.farm.core.object.ObjectBuffer;
import io.farm.core.tx.Transaction;
import io.farm.core.tx.TransactionAbortedException;
import io.farm.core.tx.Transactions;
import org.HdrHistogram.Histogram;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * One worker's closed loop: it keeps {@code window} transactions of a workload in flight with
 * {@link Transactions#execute} until the deadline, then lets them finish. Latency runs from the
 * first attempt's start to the commit (retries included). Confined to the worker's thread.
 */
final class WorkloadClient {
    private final Transactions transactions;
    private final NodeWorker worker;
    private final KeyChooser chooser;
    private final Workload workload;
    private final int window;
    private final long deadline;
    private final Histogram latency = new Histogram(3_600_000_000_000L, 3);
    private final CompletableFuture<ClientResult> done = new CompletableFuture<>();
    private final ClientResult.Builder result;
    private int inFlight;

    private WorkloadClient(Transactions transactions, NodeWorker worker, KeyChooser chooser, Workload workload, int window,
                           long deadline) {
        this.transactions = transactions;
        this.worker = worker;
        this.chooser = chooser;
        this.workload = workload;
        this.window = window;
        this.deadline = deadline;
        this.result = new ClientResult.Builder().bank(workload.bank());
    }

    /**
     * Runs {@code workload} on {@code worker} until {@code deadline} ({@link System#nanoTime()});
     * the stage completes on the worker once every transaction it started finished.
     */
    static CompletionStage<ClientResult> run(Transactions transactions, NodeWorker worker, KeyChooser chooser,
                                             Workload workload, int window, long deadline) {
        WorkloadClient client = new WorkloadClient(transactions, worker, chooser, workload, window, deadline);
        for (int i = 0; i < window; i++) {
            client.issue();
        }
        return client.done;
    }

    private void issue() {
        if (done.isDone()) {
            return;
        }
        if (System.nanoTime() - deadline >= 0) {
            if (inFlight == 0) {
                done.complete(result.build(latency));
            }
            return;
        }
        TxnPlan plan = chooser.next();
        long start = System.nanoTime();
        inFlight++;
        CompletionStage<Void> committed;
        try {
            committed = transactions.execute(worker, tx -> body(tx, plan));
        } catch (RuntimeException e) {
            done.completeExceptionally(e);
            return;
        }
        committed.whenComplete((ignored, failure) -> {
            inFlight--;
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
            if (cause == null) {
                latency.recordValue(Math.max(0, System.nanoTime() - start));
                result.committed(plan);
            } else if (cause instanceof TransactionAbortedException abort && abort.reason().retryable()) {
                // Every attempt aborted for a reason that passes (conflicts, timeouts). Others, such as a
                // freed object or a changed configuration, cannot happen here: they end the run.
                result.gaveUp();
            } else {
                done.completeExceptionally(cause);
                return;
            }
            issue();
        });
    }

    /** Reads every object of the plan at once, then writes the written ones. */
    private CompletionStage<Void> body(Transaction tx, TxnPlan plan) {
        int r = plan.objectReads();
        @SuppressWarnings("unchecked")
        CompletableFuture<ObjectBuffer>[] reads = new CompletableFuture[r];
        for (int j = 0; j < r; j++) {
            reads[j] = tx.txRead(plan.addresses()[j], KeyValueLayout.SIZE).toCompletableFuture();
        }
        return CompletableFuture.allOf(reads).thenApply(ignored -> {
            byte[][] objects = new byte[r][];
            for (int j = 0; j < r; j++) {
                result.readRetries(reads[j].join().retries());
                objects[j] = KeyValueLayout.requireKey(reads[j].join().toByteArray(), plan.keys()[j], plan.addresses()[j]);
            }
            if (workload.bank()) {
                KeyValueLayout.balance(objects[0], KeyValueLayout.balance(objects[0]) - plan.amount());
                KeyValueLayout.balance(objects[1], KeyValueLayout.balance(objects[1]) + plan.amount());
            }
            for (int j = 0; j < r; j++) {
                if (plan.written()[j]) {
                    if (!workload.bank()) {
                        KeyValueLayout.updates(objects[j], KeyValueLayout.updates(objects[j]) + 1);
                    }
                    tx.txWrite(reads[j].join(), objects[j]);
                }
            }
            return null;
        });
    }
}
