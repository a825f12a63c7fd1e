package io.farm.hashtable;

import io.farm.core.object.ObjectBuffer;
import io.farm.core.tx.AbortReason;
import io.farm.core.tx.Transaction;
import io.farm.core.tx.TransactionAbortedException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * The transaction body of one or more combined mutations of one key, run on the key's shard's
 * primary (a single-machine transaction: buckets, overflow blocks and out-of-line values all
 * live there). It reads the key's buckets b and b+1 and b's overflow chain, applies the
 * mutations in order to the key's state (present or not, value), then writes the outcome:
 * <ul>
 *   <li><b>insert</b> into a free slot of b or b+1; else hopscotch displacement: the first free
 *       slot in buckets b+2 .. b+{@value #PROBE} is moved back towards b+1 by moving, at each
 *       step, a pair whose home is bucket k-1 into bucket k (bumping their joint version, so a
 *       lock-free reader of the pair k-1, k sees a consistent neighbourhood); else the last block
 *       of b's chain, or a new block appended to it. Every chain block but the last is full and
 *       the last one's used slots come first.</li>
 *   <li><b>remove</b>: the slot is emptied; if b has a chain, its last pair moves into the freed
 *       slot, and the last block is freed if it became empty, otherwise its incarnation is
 *       incremented (and the pointer to it updated), so that a lookup that read the old
 *       position of the moved pair restarts (FaRM's chain collapse).</li>
 *   <li><b>update</b> in place; an out-of-line value is replaced by a new object and the old one freed.</li>
 *   <li><b>merge</b>: an update with the value the registered {@link ValueMerge} makes of the
 *       stored value and the argument (the stored value is read in the transaction, so the merge
 *       is atomic with every other mutation of the key).</li>
 * </ul>
 * Safe to run again: {@link io.farm.core.tx.Transactions#execute} retries it in a new
 * transaction after a conflict.
 */
final class MutationTransaction {
    /** Buckets probed beyond b+1 for a free slot before the chain is used. */
    static final int PROBE = 8;

    private final HashTable table;
    private final HashTableLayout layout;
    private final HashTableConfig config;
    private final Transaction tx;
    private final byte[] key;
    private final HashTable.Home home;
    private final List<HashTableMessages.Mutation> mutations;
    private final long shard;
    /** Buckets read, by index in the shard; their bytes are the transaction's working copies. */
    private final Map<Integer, Loaded> buckets = new LinkedHashMap<>();
    /** b's overflow chain, in order. */
    private final List<Loaded> chain = new ArrayList<>();

    /** An object read by the transaction and its working copy. */
    private static final class Loaded {
        final ObjectBuffer buffer;
        final byte[] bytes;
        boolean dirty;

        Loaded(ObjectBuffer buffer) {
            this.buffer = buffer;
            this.bytes = buffer.toByteArray();
        }
    }

    /** A slot: the object holding it and the slot's offset there. */
    private record Place(Loaded object, int slot) {
    }

    MutationTransaction(HashTable table, Transaction tx, byte[] key, List<HashTableMessages.Mutation> mutations) {
        this.table = table;
        this.layout = table.layout();
        this.config = table.config();
        this.tx = tx;
        this.key = key;
        this.home = table.home(key);
        this.mutations = mutations;
        this.shard = table.shardAddress(home.shard());
    }

    /** Runs the body; completes with each mutation's outcome, in order. */
    CompletionStage<Outcomes> run() {
        return tx.txReadArray(shard, layout.bucketSize(), home.bucket(), 2).thenCompose(pair -> {
            buckets.put(home.bucket(), new Loaded(pair.get(0)));
            buckets.put(home.bucket() + 1, new Loaded(pair.get(1)));
            return readChain(HashTableLayout.overflow(bucket(home.bucket()).bytes));
        }).thenCompose(ignored -> apply());
    }

    private Loaded bucket(int index) {
        return buckets.get(index);
    }

    private CompletionStage<Void> readChain(ChainLink block) {
        if (block == null) {
            return CompletableFuture.completedFuture(null);
        }
        return changedIfFreed(tx.txRead(block.address(), layout.blockSize())).thenCompose(buffer -> {
            if (!block.matches(buffer.objGetIncarnation())) {
                throw new TransactionAbortedException(AbortReason.CONFLICT, block.address(),
                    "the overflow chain changed while it was read");
            }
            Loaded loaded = new Loaded(buffer);
            chain.add(loaded);
            return readChain(HashTableLayout.next(loaded.bytes));
        });
    }

    /**
     * A read of a block or value the bucket pointed to, whose free means another transaction
     * changed the chain after this one read the bucket: a conflict, retried, not a lost object.
     */
    private static CompletionStage<ObjectBuffer> changedIfFreed(CompletionStage<ObjectBuffer> read) {
        return read.handle((buffer, failure) -> {
            if (failure == null) {
                return buffer;
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
            if (cause instanceof TransactionAbortedException abort && abort.reason() == AbortReason.OBJECT_FREED) {
                throw new TransactionAbortedException(AbortReason.CONFLICT, abort.address(),
                    "an object the bucket pointed to was freed by a concurrent mutation", abort);
            }
            throw cause instanceof RuntimeException e ? e : new CompletionException(cause);
        });
    }

    /**
     * Each mutation's outcome, in order: whether it took effect, or why it was refused (a merge
     * that refused its inputs or returned a value the table does not accept; the key's state is
     * then as if the mutation had not been sent).
     */
    record Outcomes(boolean[] applied, RuntimeException[] refused) {
    }

    private CompletionStage<Outcomes> apply() {
        Place place = locate();
        boolean merges = mutations.stream().anyMatch(m -> m.op() == HashTableMessages.MERGE);
        CompletionStage<byte[]> stored = place != null && merges ? storedValue(place) : CompletableFuture.completedFuture(null);
        return stored.thenCompose(current -> apply(place, current));
    }

    /** The value stored at {@code place}: inline, or read from its object. */
    private CompletionStage<byte[]> storedValue(Place place) {
        byte[] object = place.object().bytes;
        if (!layout.valueOutOfLine(object, place.slot())) {
            return CompletableFuture.completedFuture(layout.inlineValue(object, place.slot()));
        }
        return changedIfFreed(tx.txRead(layout.valuePointer(object, place.slot())))
            .thenApply(buffer -> HashTableLayout.valueOf(buffer.toByteArray()));
    }

    /** Applies the mutations to the key's state ({@code current} is its stored value when merges need it). */
    private CompletionStage<Outcomes> apply(Place place, byte[] current) {
        boolean present = place != null;
        byte[] value = current;
        boolean[] outcomes = new boolean[mutations.size()];
        RuntimeException[] refused = new RuntimeException[outcomes.length];
        for (int i = 0; i < outcomes.length; i++) {
            HashTableMessages.Mutation mutation = mutations.get(i);
            switch (mutation.op()) {
                case HashTableMessages.INSERT -> {
                    outcomes[i] = !present;
                    if (!present) {
                        present = true;
                        value = mutation.value();
                    }
                }
                case HashTableMessages.UPDATE -> {
                    outcomes[i] = present;
                    if (present) {
                        value = mutation.value();
                    }
                }
                case HashTableMessages.PUT -> {
                    outcomes[i] = true;
                    present = true;
                    value = mutation.value();
                }
                case HashTableMessages.MERGE -> {
                    if (present) {
                        try {
                            value = merged(mutation, value);
                            outcomes[i] = true;
                        } catch (RuntimeException e) {
                            refused[i] = e;
                        }
                    }
                }
                default -> {
                    outcomes[i] = present;
                    present = false;
                    value = null;
                }
            }
        }
        boolean changed = false;
        for (boolean outcome : outcomes) {
            changed |= outcome;
        }
        Outcomes result = new Outcomes(outcomes, refused);
        if (!changed) {
            return CompletableFuture.completedFuture(result);
        }
        CompletionStage<Void> written;
        if (place != null && present) {
            written = replace(place, value);
        } else if (place != null) {
            written = freeValue(place).thenCompose(ignored -> {
                remove(place);
                return CompletableFuture.completedFuture(null);
            });
        } else {
            written = insert(value);
        }
        return written.thenApply(ignored -> {
            writeBack();
            return result;
        });
    }

    /**
     * {@code value} with the merge's argument merged in.
     *
     * @throws IllegalStateException    if no merge is registered under the mutation's id here
     * @throws IllegalArgumentException if the merge refused its inputs or its result is not a value of the table
     */
    private byte[] merged(HashTableMessages.Mutation mutation, byte[] value) {
        ValueMerge merge = table.mergeOf(mutation.mergeId());
        byte[] result;
        try {
            result = merge.merge(value.clone(), mutation.value().clone());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("merge " + mutation.mergeId() + " refused its inputs for table " + table.name()
                + ": " + e.getMessage(), e);
        }
        try {
            table.checkValue(result);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("merge " + mutation.mergeId() + " returned a value table " + table.name()
                + " does not accept: " + e.getMessage(), e);
        }
        return result;
    }

    /** The key's slot, or null. */
    private Place locate() {
        for (int b = home.bucket(); b <= home.bucket() + 1; b++) {
            Loaded bucket = bucket(b);
            for (int i = 0; i < config.slotsPerBucket(); i++) {
                if (layout.holds(bucket.bytes, layout.bucketSlot(i), key)) {
                    return new Place(bucket, layout.bucketSlot(i));
                }
            }
        }
        for (Loaded block : chain) {
            for (int i = 0; i < config.overflowSlots(); i++) {
                if (layout.holds(block.bytes, layout.blockSlot(i), key)) {
                    return new Place(block, layout.blockSlot(i));
                }
            }
        }
        return null;
    }

    // ---- writing a value into a slot ----

    private CompletionStage<Void> replace(Place place, byte[] value) {
        return freeValue(place).thenCompose(ignored -> store(place, value));
    }

    /** Frees the out-of-line value of the pair at {@code place}, if it has one. */
    private CompletionStage<Void> freeValue(Place place) {
        if (!layout.valueOutOfLine(place.object().bytes, place.slot())) {
            return CompletableFuture.completedFuture(null);
        }
        return changedIfFreed(tx.txRead(layout.valuePointer(place.object().bytes, place.slot()))).thenAccept(tx::txFree);
    }

    /** Stores the key with {@code value} at {@code place}: inline, or in a new value object near the shard. */
    private CompletionStage<Void> store(Place place, byte[] value) {
        place.object().dirty = true;
        if (!layout.outOfLine(value.length)) {
            layout.putInline(place.object().bytes, place.slot(), key, value);
            return CompletableFuture.completedFuture(null);
        }
        byte[] object = HashTableLayout.valueObject(value);
        return full(tx.txAlloc(object.length, shard), "an out-of-line value of " + value.length + " bytes")
            .thenAccept(buffer -> {
            tx.txWrite(buffer, object);
            layout.putOutOfLine(place.object().bytes, place.slot(), key, buffer.fatPointer());
        });
    }

    /** {@code allocation}, whose failure names the shard as full and says how to size the table. */
    private CompletionStage<ObjectBuffer> full(CompletionStage<ObjectBuffer> allocation, String what) {
        return allocation.handle((buffer, failure) -> {
            if (failure == null) {
                return buffer;
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
            if (cause instanceof TransactionAbortedException abort) {
                throw abort;
            }
            throw new IllegalStateException("shard " + home.shard() + " of table " + table.name() + " (on node "
                + table.shardPrimary(home.shard()) + ") is full: no memory for " + what + " (" + cause.getMessage()
                + "); size the table for its keys (bucket slots = shards x buckets per shard x H/2, about the key count"
                + " / 0.9) or give its nodes more memory", cause);
        });
    }

    // ---- insert ----

    private CompletionStage<Void> insert(byte[] value) {
        Place free = freeSlot(bucket(home.bucket()));
        if (free == null) {
            free = freeSlot(bucket(home.bucket() + 1));
        }
        if (free != null) {
            return store(free, value);
        }
        int last = Math.min(home.bucket() + 1 + PROBE, config.bucketsPerShard());
        if (last < home.bucket() + 2) {
            return insertIntoChain(value);
        }
        int first = home.bucket() + 2;
        return tx.txReadArray(shard, layout.bucketSize(), first, last - first + 1).thenCompose(probed -> {
            for (int i = 0; i < probed.size(); i++) {
                buckets.put(first + i, new Loaded(probed.get(i)));
            }
            Place moved = displace(first, last);
            return moved != null ? store(moved, value) : insertIntoChain(value);
        });
    }

    private Place freeSlot(Loaded bucket) {
        for (int i = 0; i < config.slotsPerBucket(); i++) {
            if (!layout.used(bucket.bytes, layout.bucketSlot(i))) {
                return new Place(bucket, layout.bucketSlot(i));
            }
        }
        return null;
    }

    /**
     * Hopscotch displacement: finds the first bucket j in {@code first .. last} with a free slot
     * and moves the free slot back to bucket b+1, one bucket at a time; returns the free slot in
     * b+1, or null (nothing changed) when no bucket has a free slot or a step finds no pair that
     * may move.
     */
    private Place displace(int first, int last) {
        int j = -1;
        for (int k = first; k <= last && j < 0; k++) {
            if (freeSlot(bucket(k)) != null) {
                j = k;
            }
        }
        if (j < 0) {
            return null;
        }
        // Plan the moves first, so that a failed step changes nothing.
        int[] fromSlots = new int[j - home.bucket() - 1];
        for (int k = j; k >= home.bucket() + 2; k--) {
            int from = movableSlot(k - 1);
            if (from < 0) {
                return null;
            }
            fromSlots[k - home.bucket() - 2] = from;
        }
        for (int k = j; k >= home.bucket() + 2; k--) {
            Loaded source = bucket(k - 1);
            Loaded target = bucket(k);
            int from = fromSlots[k - home.bucket() - 2];
            Place to = freeSlot(target);
            layout.copySlot(source.bytes, from, target.bytes, to.slot());
            layout.clear(source.bytes, from);
            HashTableLayout.bumpJoint(source.bytes, target.bytes);
            source.dirty = true;
            target.dirty = true;
        }
        return freeSlot(bucket(home.bucket() + 1));
    }

    /**
     * A used slot of bucket {@code k} whose pair's home is bucket {@code k} (so it may move to
     * k+1), or -1. Bucket k+1 must have a free slot by then: the moves run from the far end.
     */
    private int movableSlot(int k) {
        Loaded bucket = bucket(k);
        for (int i = 0; i < config.slotsPerBucket(); i++) {
            int slot = layout.bucketSlot(i);
            if (layout.used(bucket.bytes, slot) && table.home(layout.key(bucket.bytes, slot)).bucket() == k) {
                return slot;
            }
        }
        return -1;
    }

    private CompletionStage<Void> insertIntoChain(byte[] value) {
        if (!chain.isEmpty()) {
            Loaded last = chain.getLast();
            for (int i = 0; i < config.overflowSlots(); i++) {
                if (!layout.used(last.bytes, layout.blockSlot(i))) {
                    return store(new Place(last, layout.blockSlot(i)), value);
                }
            }
        }
        return full(tx.txAlloc(layout.blockSize(), shard), "an overflow block").thenCompose(buffer -> {
            Loaded block = new Loaded(buffer);
            block.dirty = true;
            Loaded predecessor = chain.isEmpty() ? bucket(home.bucket()) : chain.getLast();
            link(predecessor, ChainLink.to(buffer.address(), buffer.objGetIncarnation()));
            chain.add(block);
            return store(new Place(block, layout.blockSlot(0)), value);
        });
    }

    /** Points {@code predecessor} (the home bucket or a block) at {@code next} (or nothing). */
    private void link(Loaded predecessor, ChainLink next) {
        if (predecessor == bucket(home.bucket())) {
            HashTableLayout.setOverflow(predecessor.bytes, next);
        } else {
            HashTableLayout.setNext(predecessor.bytes, next);
        }
        predecessor.dirty = true;
    }

    // ---- remove ----

    private void remove(Place place) {
        place.object().dirty = true;
        layout.clear(place.object().bytes, place.slot());
        if (chain.isEmpty()) {
            return;
        }
        Loaded last = chain.getLast();
        int lastSlot = -1;
        for (int i = config.overflowSlots() - 1; i >= 0 && lastSlot < 0; i--) {
            if (layout.used(last.bytes, layout.blockSlot(i))) {
                lastSlot = layout.blockSlot(i);
            }
        }
        // The chain's last pair fills the freed slot (unless it lies before it in the last block).
        boolean moved = lastSlot >= 0 && (place.object() != last || lastSlot > place.slot());
        if (moved) {
            layout.copySlot(last.bytes, lastSlot, place.object().bytes, place.slot());
            layout.clear(last.bytes, lastSlot);
            last.dirty = true;
        }
        Loaded predecessor = chain.size() == 1 ? bucket(home.bucket()) : chain.get(chain.size() - 2);
        boolean empty = true;
        for (int i = 0; i < config.overflowSlots(); i++) {
            empty &= !layout.used(last.bytes, layout.blockSlot(i));
        }
        if (empty) {
            tx.txFree(last.buffer);
            last.dirty = false;
            chain.removeLast();
            link(predecessor, null);
        } else if (moved && place.object() != last) {
            // A lookup that read the moved pair's new place before the move and its old place after
            // it restarts: the pointer to the last block changes incarnation.
            last.buffer.objIncrementIncarnation();
            link(predecessor, ChainLink.to(last.buffer.address(), last.buffer.objGetIncarnation()));
        }
    }

    private void writeBack() {
        for (Loaded bucket : buckets.values()) {
            if (bucket.dirty) {
                tx.txWrite(bucket.buffer, bucket.bytes);
            }
        }
        for (Loaded block : chain) {
            if (block.dirty) {
                tx.txWrite(block.buffer, block.bytes);
            }
        }
    }
}
