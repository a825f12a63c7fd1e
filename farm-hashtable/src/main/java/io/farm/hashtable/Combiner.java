package io.farm.hashtable;

import io.farm.core.cluster.NodeWorker;
import io.farm.core.tx.Transactions;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Flat combining of one worker's mutations (FaRM NSDI'14 §3.6, after Hendler et al.): while a
 * transaction for a key is running on this worker, later mutations of that key wait, and run
 * together, in arrival order, in the next transaction of the key; each gets its own outcome.
 * Concurrent updates of a hot key then cost one commit (one lock, one replication) per batch.
 * Confined to its worker (mutations reach worker {@code t} of the primary from worker {@code t}
 * of every node).
 */
final class Combiner {
    /**
     * Attempts of one batch's transaction: mutations of other keys in the same buckets (on the
     * primary's other workers) conflict with it, and a mutation should not fail for that.
     */
    static final int ATTEMPTS = 1_000;
    private final NodeWorker worker;
    private final Transactions transactions;
    private final Map<Key, List<Pending>> waiting = new HashMap<>();
    private final AtomicLong combined;

    /** A key of a table, compared by content. */
    private record Key(HashTable table, ByteBuffer key) {
    }

    /** A mutation waiting for its outcome. */
    private record Pending(HashTableMessages.Mutation mutation, CompletableFuture<Boolean> outcome) {
    }

    Combiner(NodeWorker worker, Transactions transactions, AtomicLong combined) {
        this.worker = worker;
        this.transactions = transactions;
        this.combined = combined;
    }

    /** Runs {@code mutation} of {@code table}, alone or combined with others of its key; completes with its outcome. */
    CompletionStage<Boolean> submit(HashTable table, HashTableMessages.Mutation mutation) {
        Key key = new Key(table, ByteBuffer.wrap(mutation.key()));
        Pending pending = new Pending(mutation, new CompletableFuture<>());
        List<Pending> queued = waiting.get(key);
        if (queued != null) {
            queued.add(pending);
            combined.incrementAndGet();
        } else {
            waiting.put(key, new ArrayList<>());
            run(table, key, List.of(pending));
        }
        return pending.outcome();
    }

    private void run(HashTable table, Key key, List<Pending> batch) {
        List<HashTableMessages.Mutation> mutations = batch.stream().map(Pending::mutation).toList();
        byte[] keyBytes = batch.getFirst().mutation().key();
        transactions.execute(worker, ATTEMPTS, tx -> new MutationTransaction(table, tx, keyBytes, mutations).run())
            .whenComplete((outcomes, failure) -> {
                for (int i = 0; i < batch.size(); i++) {
                    if (failure != null) {
                        batch.get(i).outcome().completeExceptionally(failure);
                    } else if (outcomes.refused()[i] != null) {
                        batch.get(i).outcome().completeExceptionally(outcomes.refused()[i]);
                    } else {
                        batch.get(i).outcome().complete(outcomes.applied()[i]);
                    }
                }
                List<Pending> next = waiting.get(key);
                if (next.isEmpty()) {
                    waiting.remove(key);
                } else {
                    waiting.put(key, new ArrayList<>());
                    run(table, key, next);
                }
            });
    }
}
