package io.farm.bench.txn;

import io.farm.core.cluster.NodeWorker;
import io.farm.core.object.ObjectBuffer;
import io.farm.core.tx.Transactions;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Reads every object of the store after the workloads, in read-only transactions of
 * {@value #BATCH} objects, and sums what the workloads must have preserved: the balances (bank
 * transfers move balance, never create it) and the updates (each O(r,w) write adds one, so
 * their sum is the number of writes the committed transactions made).
 *
 * @param objects  objects read
 * @param balances sum of the balances
 * @param updates  sum of the updates
 */
record StoreCheck(long objects, long balances, long updates) {
    /** Objects read by one transaction of the check. */
    static final int BATCH = 32;

    /** Reads the whole of {@code keys} on {@code worker}; completes on the worker. */
    static CompletionStage<StoreCheck> run(Transactions transactions, NodeWorker worker, KeySpace keys) {
        return from(transactions, worker, keys, 0, new StoreCheck(0, 0, 0));
    }

    private static CompletionStage<StoreCheck> from(Transactions transactions, NodeWorker worker, KeySpace keys, long first,
                                                    StoreCheck sum) {
        if (first == keys.keys()) {
            return CompletableFuture.completedFuture(sum);
        }
        int count = (int) Math.min(BATCH, keys.keys() - first);
        return transactions.execute(worker, tx -> {
            @SuppressWarnings("unchecked")
            CompletableFuture<ObjectBuffer>[] reads = new CompletableFuture[count];
            long[] addresses = new long[count];
            for (int i = 0; i < count; i++) {
                long key = first + i;
                addresses[i] = keys.address((int) (key / keys.keysPerNode()), (int) (key % keys.keysPerNode()));
                reads[i] = tx.txRead(addresses[i], KeyValueLayout.SIZE).toCompletableFuture();
            }
            return CompletableFuture.allOf(reads).thenApply(ignored -> {
                long balances = 0;
                long updates = 0;
                for (int i = 0; i < count; i++) {
                    byte[] object = KeyValueLayout.requireKey(reads[i].join().toByteArray(), first + i, addresses[i]);
                    balances += KeyValueLayout.balance(object);
                    updates += KeyValueLayout.updates(object);
                }
                return new StoreCheck(count, balances, updates);
            });
        }).thenCompose(batch -> from(transactions, worker, keys, first + count,
            new StoreCheck(sum.objects + batch.objects, sum.balances + batch.balances, sum.updates + batch.updates)));
    }
}
