package io.farm.hashtable;

import io.farm.core.Farm;
import io.farm.core.addr.GlobalAddress;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.node.Blocking;
import io.farm.core.object.FatPointer;
import io.farm.core.object.LockFreeOperation;
import io.farm.core.object.LockFreeReadTimeoutException;
import io.farm.core.object.LockFreeReads;
import io.farm.core.object.ObjectBuffer;
import io.farm.core.object.ObjectFreedException;
import io.farm.core.object.ObjectLayout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

/**
 * One chained associative hopscotch hashtable (FaRM NSDI'14 §3.6, DESIGN §10) as seen from one
 * node. Keys and values are byte sequences (keys 1 .. {@code maxKeyLength} bytes, values 0 ..
 * {@code maxValueLength}); a key lives in its home bucket or the next one, else in the home
 * bucket's overflow chain. Linearizable:
 * <ul>
 *   <li>{@link #get} is a lock-free read-only operation: one read of buckets b and b+1 (a fabric
 *       read, or a local copy when this node holds the shard), accepted when both are consistent
 *       and their joint versions match; then, only if needed, the overflow chain and an
 *       out-of-line value, each through a fat pointer whose incarnation must match (else the
 *       lookup restarts).</li>
 *   <li>{@link #insert}, {@link #update}, {@link #put}, {@link #remove} and {@link #merge} are
 *       shipped to the shard's primary ({@code msgSend}), where concurrent mutations of one key
 *       are combined and run as one single-machine transaction ({@link Combiner},
 *       {@link MutationTransaction}).</li>
 * </ul>
 * Every stage completes on the calling worker; the {@code *Blocking} methods are the facade for
 * code outside workers.
 */
public final class HashTable {
    /** A lookup that restarts this many times (joint versions or incarnations moving under it) fails. */
    public static final int MAX_RESTARTS = 1_000;

    private final HashTables tables;
    private final Farm farm;
    private final String name;
    private final HashTableConfig config;
    private final HashTableLayout layout;
    private final long[] shards;
    private final int bucketStride;
    /** Shard addresses in increasing order, and the shard number of each, to find a bucket's shard. */
    private final long[] sortedShards;
    private final int[] sortedShardIndex;
    private final HashTableStats stats = new HashTableStats();
    /** Idle lookups by worker; each pool is touched by its worker only. */
    private final ArrayDeque<Lookup>[] lookups;

    HashTable(HashTables tables, String name, HashTableConfig config, long[] shards) {
        this.tables = tables;
        this.farm = tables.farm();
        this.name = name;
        this.config = config;
        this.layout = new HashTableLayout(config);
        this.shards = shards.clone();
        this.bucketStride = ObjectLayout.storedSize(layout.bucketSize());
        @SuppressWarnings("unchecked")
        ArrayDeque<Lookup>[] pools = new ArrayDeque[farm.node().config().threads()];
        for (int w = 0; w < pools.length; w++) {
            pools[w] = new ArrayDeque<>();
        }
        this.lookups = pools;
        Integer[] order = new Integer[shards.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Long.compare(shards[a], shards[b]));
        this.sortedShards = new long[shards.length];
        this.sortedShardIndex = new int[shards.length];
        for (int i = 0; i < order.length; i++) {
            sortedShards[i] = shards[order[i]];
            sortedShardIndex[i] = order[i];
        }
    }

    /** The table's name. */
    public String name() {
        return name;
    }

    /** Its configuration. */
    public HashTableConfig config() {
        return config;
    }

    /** Its layout. */
    public HashTableLayout layout() {
        return layout;
    }

    /** Counts of this node's operations on the table. */
    public HashTableStats stats() {
        return stats;
    }

    /** The address of shard {@code shard}'s first bucket. */
    public long shardAddress(int shard) {
        return shards[shard];
    }

    /** The number of shards. */
    public int shardCount() {
        return shards.length;
    }

    /**
     * The shard {@code key} lives in: with {@link #shardPrimary}, where its lookups are local
     * (no fabric read) and where its mutations run.
     *
     * @throws IllegalArgumentException if the key is not accepted (see {@link #get})
     */
    public int shardOfKey(byte[] key) {
        checkKey(key);
        return home(key).shard();
    }

    /** The node that is the primary of shard {@code shard}. */
    public int shardPrimary(int shard) {
        return farm.node().config().placement().primary(GlobalAddress.regionId(shards[shard]));
    }

    /** Whether {@code address} lies in one of this table's shards. */
    boolean containsBucket(long address) {
        return shardOf(address) >= 0;
    }

    /** The shard holding bucket {@code address}, or -1. */
    int shardOf(long address) {
        int at = Arrays.binarySearch(sortedShards, address);
        int floor = at >= 0 ? at : -at - 2;
        if (floor < 0) {
            return -1;
        }
        int shard = sortedShardIndex[floor];
        long offset = address - shards[shard];
        boolean inside = offset < (long) bucketStride * (config.bucketsPerShard() + 1)
            && GlobalAddress.regionId(address) == GlobalAddress.regionId(shards[shard]);
        return inside ? shard : -1;
    }

    /** The address of bucket {@code bucket} of shard {@code shard}. */
    long bucketAddress(int shard, int bucket) {
        return shards[shard] + (long) bucket * bucketStride;
    }

    /** Where {@code key} lives: its hash, shard and home bucket. */
    Home home(byte[] key) {
        long hash = KeyHashing.hash(key);
        int shard = KeyHashing.shard(hash, shards.length);
        return new Home(shard, KeyHashing.bucket(hash, config.bucketsPerShard()));
    }

    /** A key's shard and home bucket. */
    record Home(int shard, int bucket) {
    }

    // ---- lookups ----

    /**
     * The value of {@code key}, or null if absent; a lock-free read-only operation on {@code worker}.
     *
     * @throws IllegalArgumentException if the key is null, empty or longer than the table's keys
     * @throws IllegalStateException    if called off {@code worker}'s thread
     */
    public CompletionStage<byte[]> get(NodeWorker worker, byte[] key) {
        checkKey(key);
        Home home = home(key);
        LockFreeOperation operation = farm.reads().lockFreeStart(worker);
        ArrayDeque<Lookup> pool = lookups[worker.index()];
        Lookup lookup = pool.isEmpty() ? new Lookup(pool) : pool.poll();
        CompletableFuture<byte[]> result = new CompletableFuture<>();
        lookup.start(operation, key, home, result);
        return result;
    }

    /**
     * One lookup: its attempts, each one read of the neighbourhood into the lookup's own native
     * buffer and, if needed, of the chain and the value. Objects on this node (neighbourhood,
     * chain blocks, value) are copied with local memory accesses at once
     * ({@link LockFreeReads#readLocalInto}), another node's with a fabric read. Lookups are reused, one pool per worker, so the common path allocates
     * no memory for its copy.
     */
    private final class Lookup implements LockFreeReads.IntoCallback, Runnable {
        private final ArrayDeque<Lookup> pool;
        // Native, like every segment farm's fabric copies into.
        private final MemorySegment pair = Arena.ofAuto().allocate(2L * bucketStride, ObjectLayout.LINE);
        /** The stored copy, moved to the heap with one bulk copy, then decoded with plain array copies. */
        private final byte[] stored = new byte[2 * bucketStride];
        private final byte[] bucket = new byte[layout.bucketSize()];
        private final byte[] next = new byte[layout.bucketSize()];
        /** Local copies of a chain block and of an out-of-line value (grown to the largest read). */
        private final MemorySegment blockCopy = Arena.ofAuto().allocate(ObjectLayout.storedSize(layout.blockSize()),
            ObjectLayout.LINE);
        private MemorySegment valueCopy;
        private LockFreeOperation operation;
        private byte[] key;
        private Home home;
        private CompletableFuture<byte[]> result;
        private int restarts;
        private int reads;
        private int localReads;
        /** Set while {@link #get} runs the lookup's first attempt: an outcome then is deferred. */
        private boolean starting;
        private byte[] deferredValue;
        private Throwable deferredFailure;

        Lookup(ArrayDeque<Lookup> pool) {
            this.pool = pool;
        }

        void start(LockFreeOperation operation, byte[] key, Home home, CompletableFuture<byte[]> result) {
            this.operation = operation;
            this.key = key;
            this.home = home;
            this.result = result;
            this.restarts = 0;
            this.reads = 0;
            this.localReads = 0;
            starting = true;
            try {
                attempt();
            } finally {
                starting = false;
            }
        }

        void attempt() {
            long address = shards[home.shard()] + (long) home.bucket() * bucketStride;
            int copies = farm.reads().readLocalInto(operation, address, layout.bucketSize(), 2, pair);
            if (copies > 0) {
                localReads += copies;
                copied(copies);
            } else {
                farm.reads().lockFreeReadInto(operation, address, layout.bucketSize(), 2, pair, this);
            }
        }

        @Override
        public void copied(int copies) {
            reads += copies;
            MemorySegment.copy(pair, ValueLayout.JAVA_BYTE, 0, stored, 0, stored.length);
            ObjectLayout.toApplication(stored, 0, bucket, 0, bucket.length);
            ObjectLayout.toApplication(stored, bucketStride, next, 0, next.length);
            if (HashTableLayout.forwardJoint(bucket) != HashTableLayout.backwardJoint(next)) {
                restart();
                return;
            }
            if (!found(bucket, true) && !found(next, true)) {
                walk(HashTableLayout.overflow(bucket));
            }
        }

        /** Looks for the key in a bucket's or block's slots; completes the lookup if there. */
        private boolean found(byte[] object, boolean isBucket) {
            int slots = isBucket ? config.slotsPerBucket() : config.overflowSlots();
            for (int i = 0; i < slots; i++) {
                int slot = isBucket ? layout.bucketSlot(i) : layout.blockSlot(i);
                if (layout.holds(object, slot, key)) {
                    if (layout.valueOutOfLine(object, slot)) {
                        readValue(layout.valuePointer(object, slot));
                    } else {
                        done(layout.inlineValue(object, slot), null);
                    }
                    return true;
                }
            }
            return false;
        }

        private void walk(ChainLink block) {
            if (block == null) {
                done(null, null);
                return;
            }
            ObjectBuffer local = farm.reads().readLocal(operation, block.address(), layout.blockSize(), blockCopy);
            if (local != null) {
                localReads += local.reads();
                chainBlock(block, local);
                return;
            }
            farm.reads().lockFreeRead(operation, block.address(), layout.blockSize()).whenComplete((buffer, failure) -> {
                if (failure != null) {
                    failed(failure);
                } else {
                    chainBlock(block, buffer);
                }
            });
        }

        /** Looks for the key in the chain block {@code block} points to, read into {@code buffer}; walks on if not there. */
        private void chainBlock(ChainLink block, ObjectBuffer buffer) {
            reads += buffer.reads();
            if (!block.matches(buffer.objGetIncarnation())) {
                // The block was freed and reused, or re-incarnated by a remove: the chain changed.
                restart();
                return;
            }
            byte[] bytes = buffer.toByteArray();
            if (!found(bytes, false)) {
                walk(HashTableLayout.next(bytes));
            }
        }

        private void readValue(FatPointer value) {
            ObjectBuffer local = farm.reads().readLocal(operation, value.address(), value.size(), valueCopy(value.size()));
            if (local != null && local.objGetIncarnation() == value.incarnation()) {
                localReads += local.reads();
                reads += local.reads();
                done(HashTableLayout.valueOf(local.toByteArray()), null);
                return;
            }
            // Another node's value, or one freed since the slot was read: the fabric read reports which.
            farm.reads().lockFreeRead(operation, value).whenComplete((buffer, failure) -> {
                if (failure != null) {
                    failed(failure);
                    return;
                }
                reads += buffer.reads();
                done(HashTableLayout.valueOf(buffer.toByteArray()), null);
            });
        }

        /** A native buffer for a local copy of an out-of-line value of {@code size} bytes, grown as needed. */
        private MemorySegment valueCopy(int size) {
            long stored = ObjectLayout.storedSize(size);
            if (valueCopy == null || valueCopy.byteSize() < stored) {
                valueCopy = Arena.ofAuto().allocate(stored, ObjectLayout.LINE);
            }
            return valueCopy;
        }

        @Override
        public void failed(Throwable failure) {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
            if (cause instanceof ObjectFreedException || cause instanceof LockFreeReadTimeoutException) {
                // A block or value freed, or a block's incarnation moved on: the chain changed under us.
                // Or a read outlasted the bound of line versions (its worker was descheduled): read again.
                restart();
            } else {
                done(null, cause);
            }
        }

        private void restart() {
            stats.countRestart();
            if (++restarts > MAX_RESTARTS) {
                done(null, new IllegalStateException("lookup in table " + name + " restarted " + restarts
                    + " times: its buckets keep changing under it"));
                return;
            }
            attempt();
        }

        /**
         * Ends the operation, then completes: at once, or, when the lookup ended inside
         * {@link #get} (a local neighbourhood, copied at once), as the worker's next
         * continuation, so that a caller that looks up again from each completion does not
         * recurse.
         */
        private void done(byte[] value, Throwable failure) {
            NodeWorker worker = operation.worker();
            farm.reads().lockFreeEnd(operation);
            if (failure == null) {
                stats.countLookup(reads, localReads);
            }
            operation = null;
            key = null;
            if (starting) {
                deferredValue = value;
                deferredFailure = failure;
                try {
                    worker.worker().execute(this);
                    return;
                } catch (RejectedExecutionException stopping) {
                    // The worker stops: complete here rather than never.
                }
            }
            complete(value, failure);
        }

        /** The deferred completion of {@link #done}. */
        @Override
        public void run() {
            byte[] value = deferredValue;
            Throwable failure = deferredFailure;
            deferredValue = null;
            deferredFailure = null;
            complete(value, failure);
        }

        /** Returns this lookup to its pool, then completes (the continuation may look up again). */
        private void complete(byte[] value, Throwable failure) {
            CompletableFuture<byte[]> completing = result;
            result = null;
            pool.push(this);
            if (failure == null) {
                completing.complete(value);
            } else {
                completing.completeExceptionally(failure);
            }
        }
    }

    /**
     * The value of {@code key}, or null, looked up by the shard's primary: the key goes there as
     * a message ({@code msgSend}), the primary reads its buckets locally and answers. The
     * message-passing baseline of {@link #get} (FaRM's comparison in §4); same result.
     *
     * @throws IllegalArgumentException as {@link #get}
     */
    public CompletionStage<byte[]> getByMessage(NodeWorker worker, byte[] key) {
        checkKey(key);
        Home home = home(key);
        return farm.shipping().msgSend(worker, bucketAddress(home.shard(), home.bucket()), HashTableMessages.LOOKUP, key)
            .thenApply(answer -> answer[0] == 0 ? null : Arrays.copyOfRange(answer, 1, answer.length));
    }

    /**
     * Walks the whole table with lock-free reads (every shard, chain and out-of-line value) and
     * counts what it holds and the memory it occupies; for space-utilization figures. Not a
     * snapshot: run it while the table is quiet.
     */
    public CompletionStage<TableCensus> census(NodeWorker worker) {
        return new Census(this, worker).run();
    }

    // ---- mutations ----

    /** Inserts {@code key} with {@code value} if absent; completes with whether it did. */
    public CompletionStage<Boolean> insert(NodeWorker worker, byte[] key, byte[] value) {
        return mutate(worker, HashTableMessages.INSERT, key, value);
    }

    /** Replaces the value of {@code key} if present; completes with whether it did. */
    public CompletionStage<Boolean> update(NodeWorker worker, byte[] key, byte[] value) {
        return mutate(worker, HashTableMessages.UPDATE, key, value);
    }

    /** Inserts or replaces {@code key}'s value. */
    public CompletionStage<Void> put(NodeWorker worker, byte[] key, byte[] value) {
        return mutate(worker, HashTableMessages.PUT, key, value).thenApply(ignored -> null);
    }

    /** Removes {@code key} if present; completes with whether it did. */
    public CompletionStage<Boolean> remove(NodeWorker worker, byte[] key) {
        return mutate(worker, HashTableMessages.REMOVE, key, null);
    }

    /**
     * Replaces the value of {@code key}, if present, with {@link ValueMerge#merge merge}(value,
     * {@code argument}) of the merge registered under {@code mergeId} at the shard's primary, in
     * one transaction there: atomic with every other mutation of the key, cluster-wide. Completes
     * with whether the key was present (and merged); fails, changing nothing, when the primary has
     * no merge under the id, or the merge refuses its inputs or returns a value the table does not
     * accept.
     *
     * @throws IllegalArgumentException if the key, the id or the argument (as long as a value at
     *                                  most) is not accepted
     */
    public CompletionStage<Boolean> merge(NodeWorker worker, byte[] key, int mergeId, byte[] argument) {
        HashTableMessages.checkMergeId(mergeId);
        return mutate(worker, HashTableMessages.MERGE, mergeId, key, argument);
    }

    private CompletionStage<Boolean> mutate(NodeWorker worker, byte op, byte[] key, byte[] value) {
        return mutate(worker, op, 0, key, value);
    }

    private CompletionStage<Boolean> mutate(NodeWorker worker, byte op, int mergeId, byte[] key, byte[] value) {
        checkKey(key);
        if (op != HashTableMessages.REMOVE) {
            checkValue(value);
        }
        Home home = home(key);
        stats.countMutation();
        return farm.shipping().msgSend(worker, bucketAddress(home.shard(), home.bucket()), HashTableMessages.MUTATE,
            HashTableMessages.mutation(op, mergeId, key, value)).thenApply(answer -> answer.length == 1 && answer[0] == 1);
    }

    /**
     * Runs a mutation decoded at the shard's primary (from {@link HashTables}). Every mutation of
     * a key runs on one worker of the primary, chosen by the key's hash, so that its combiner
     * sees all of them (flat combining) and no two workers' transactions fight over the key's
     * bucket; a mutation received by another worker is handed over, and its answer comes back
     * through the function-shipping layer.
     */
    CompletionStage<byte[]> serve(NodeWorker worker, HashTableMessages.Mutation mutation) {
        checkKey(mutation.key());
        if (mutation.value() != null) {
            checkValue(mutation.value());
        }
        int threads = farm.node().config().threads();
        int owner = (int) Long.remainderUnsigned(KeyHashing.hash(mutation.key()), threads);
        if (owner == worker.index()) {
            return combine(worker, mutation);
        }
        NodeWorker target = farm.node().worker(owner);
        CompletableFuture<byte[]> answer = new CompletableFuture<>();
        target.worker().execute(() -> combine(target, mutation).whenComplete((bytes, failure) -> {
            if (failure != null) {
                answer.completeExceptionally(failure);
            } else {
                answer.complete(bytes);
            }
        }));
        return answer;
    }

    private CompletionStage<byte[]> combine(NodeWorker worker, HashTableMessages.Mutation mutation) {
        return tables.combiner(worker).submit(this, mutation).thenApply(done -> new byte[] {(byte) (done ? 1 : 0)});
    }

    // ---- blocking facade ----

    /** {@link #get} from outside the workers, on worker {@code workerIndex}. */
    public byte[] getBlocking(int workerIndex, byte[] key) {
        return blocking(workerIndex, worker -> get(worker, key));
    }

    /** {@link #insert} from outside the workers. */
    public boolean insertBlocking(int workerIndex, byte[] key, byte[] value) {
        return blocking(workerIndex, worker -> insert(worker, key, value));
    }

    /** {@link #update} from outside the workers. */
    public boolean updateBlocking(int workerIndex, byte[] key, byte[] value) {
        return blocking(workerIndex, worker -> update(worker, key, value));
    }

    /** {@link #put} from outside the workers. */
    public void putBlocking(int workerIndex, byte[] key, byte[] value) {
        blocking(workerIndex, worker -> put(worker, key, value));
    }

    /** {@link #merge} from outside the workers. */
    public boolean mergeBlocking(int workerIndex, byte[] key, int mergeId, byte[] argument) {
        return blocking(workerIndex, worker -> merge(worker, key, mergeId, argument));
    }

    /** {@link #remove} from outside the workers. */
    public boolean removeBlocking(int workerIndex, byte[] key) {
        return blocking(workerIndex, worker -> remove(worker, key));
    }

    private <T> T blocking(int workerIndex, Function<NodeWorker, CompletionStage<T>> operation) {
        Blocking.requireOffWorker("a blocking hashtable operation");
        return Blocking.await(farm.node().submit(workerIndex, operation));
    }

    // ---- input checks ----

    void checkKey(byte[] key) {
        if (key == null || key.length == 0 || key.length > config.maxKeyLength()) {
            throw new IllegalArgumentException("key of " + (key == null ? "null" : key.length + " bytes")
                + " refused by table " + name + ": keys are 1.." + config.maxKeyLength() + " bytes");
        }
    }

    void checkValue(byte[] value) {
        if (value == null || value.length > config.maxValueLength()) {
            throw new IllegalArgumentException("value of " + (value == null ? "null" : value.length + " bytes")
                + " refused by table " + name + ": values are 0.." + config.maxValueLength() + " bytes (a null value is"
                + " not accepted; remove the key instead)");
        }
    }

    Farm farm() {
        return farm;
    }

    /** The merge registered under {@code id} on this node (see {@link HashTables#merge}). */
    ValueMerge mergeOf(int id) {
        return tables.merge(id);
    }

    @Override
    public String toString() {
        return "HashTable[" + name + ", " + config + "]";
    }
}
