package io.farm.bench.txn;

import io.farm.core.addr.GlobalAddress;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.object.ObjectBuffer;
import io.farm.core.tx.Transactions;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Preloads one node's keys: allocates and writes its objects in transactions of
 * {@value #BATCH} objects each, on one of its workers. The objects are allocated without a hint,
 * so the node is their primary, and every such transaction is a single-machine commit.
 */
final class KeyLoader {
    /** Objects allocated by one transaction (their LOCK-sized records fit a log ring's quarter). */
    static final int BATCH = 64;

    private final Transactions transactions;
    private final NodeWorker worker;
    private final long firstKey;
    private final long[] addresses;

    private KeyLoader(Transactions transactions, NodeWorker worker, long firstKey, int count) {
        this.transactions = transactions;
        this.worker = worker;
        this.firstKey = firstKey;
        this.addresses = new long[count];
    }

    /**
     * Allocates {@code count} objects holding keys {@code firstKey ..} on {@code worker}'s node;
     * the stage completes on the worker with their addresses, by key.
     */
    static CompletionStage<long[]> load(Transactions transactions, NodeWorker worker, long firstKey, int count) {
        KeyLoader loader = new KeyLoader(transactions, worker, firstKey, count);
        return loader.from(0).thenApply(ignored -> loader.checked());
    }

    private CompletionStage<Void> from(int start) {
        if (start == addresses.length) {
            return CompletableFuture.completedFuture(null);
        }
        int end = Math.min(addresses.length, start + BATCH);
        return transactions.execute(worker, tx -> {
            @SuppressWarnings("unchecked")
            CompletableFuture<ObjectBuffer>[] allocations = new CompletableFuture[end - start];
            for (int i = start; i < end; i++) {
                allocations[i - start] = tx.txAlloc(KeyValueLayout.SIZE, 0).toCompletableFuture();
            }
            return CompletableFuture.allOf(allocations).thenApply(ignored -> {
                for (int i = start; i < end; i++) {
                    ObjectBuffer object = allocations[i - start].join();
                    tx.txWrite(object, KeyValueLayout.initial(firstKey + i));
                    addresses[i] = object.address();
                }
                return null;
            });
        }).thenCompose(ignored -> from(end));
    }

    private long[] checked() {
        int node = worker.node().id();
        for (long address : addresses) {
            int primary = worker.node().config().placement().primary(GlobalAddress.regionId(address));
            if (primary != node) {
                throw new IllegalStateException("an object allocated without a hint on node " + node + " has primary "
                    + primary + ": " + GlobalAddress.toString(address));
            }
        }
        return addresses;
    }
}
