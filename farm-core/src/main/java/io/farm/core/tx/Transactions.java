package io.farm.core.tx;

import io.farm.alloc.SizeClasses;
import io.farm.core.addr.GlobalAddress;
import io.farm.core.alloc.NodeAllocator;
import io.farm.core.cluster.Node;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.msg.RingKind;
import io.farm.core.node.Blocking;
import io.farm.core.node.Worker;
import io.farm.core.object.LockFreeReads;
import io.farm.core.object.ObjectLayout;
import io.farm.core.placement.PlacementRing;
import io.farm.core.placement.ReplicaSet;
import io.farm.core.region.Region;
import io.farm.core.tx.history.CommittedTransaction;
import io.farm.core.tx.history.HistoryRecorder;

import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Strictly serializable transactions on one node (FaRM NSDI'14 §3.2, §3.4; SOSP'15's commit;
 * DESIGN §7). Attach one to every member ({@link #attach}); applications create transactions on a
 * worker ({@link #txCreate}) or let {@link #execute} run, commit and retry one.
 *
 * <p><b>Commit of a distributed transaction</b> (the coordinator is the transaction's worker):
 * <ol>
 *   <li><b>LOCK</b>: a log record with the written objects' new values to each primary of a
 *       written object; the primary locks each object, exclusively, at the version the
 *       transaction read, and answers; any failure aborts.</li>
 *   <li><b>VALIDATE</b>: one one-sided read of the header of each object only read (or a local
 *       check, for this node's objects): it must be unlocked at the version read.</li>
 *   <li><b>COMMIT-BACKUP</b>: a log record with the new values to every backup of a written
 *       object's region; the coordinator waits for the writes' completions, not for the backups'
 *       CPUs.</li>
 *   <li><b>COMMIT-PRIMARY</b>: a log record to each primary, which installs the values, bumps
 *       the versions and unlocks. The commit is reported at the first completion.</li>
 *   <li><b>TRUNCATE</b>: once every COMMIT-PRIMARY completed, the records are truncated lazily,
 *       piggybacked on later records ({@link TxCoordinator}); backups apply the values then.</li>
 * </ol>
 * A read-only transaction only validates; one that read a single object does not even do that.
 * With no backups ({@code farm.backups=0}, cache mode) step 3 is skipped.
 *
 * <p><b>Single-machine transactions</b>: when this node is the primary of every object the
 * transaction read or wrote (a transaction shipped to its data with
 * {@link io.farm.core.ship.FunctionShipping}), locking and validation are local: objects are
 * locked in the mode that still allows lock-free reads, the COMMIT-BACKUP records go to the
 * backups, then every written object is locked exclusively, and they are installed (FaRM's dual-mode lock).
 * The commit is reported after the install. No LOCK or COMMIT-PRIMARY record is sent.
 *
 * <p>Costs, counted by the fabric: Pw·(f+3) one-sided writes (LOCK, its reply, f COMMIT-BACKUPs
 * and a COMMIT-PRIMARY per written primary; truncations ride on later records) and Pr reads
 * (validation of objects only read at other primaries). Every record and message carries the
 * configuration id.
 */
public final class Transactions {
    /** Attempts {@link #execute} makes by default. */
    public static final int DEFAULT_ATTEMPTS = 16;
    private static final long MIN_RETRY_BACKOFF_NANOS = 1_000;
    private static final long MAX_RETRY_BACKOFF_NANOS = 1_000_000;
    private static final int BACKUP_STRIPES = 1024;

    private final Node node;
    private final LockFreeReads reads;
    private final NodeAllocator allocator;
    private final PlacementRing placement;
    private final TxParticipant[] participants;
    private final TxCoordinator[] coordinators;
    private final SplittableRandom[] randoms;
    private final InstallPacing pacing = new InstallPacing();
    private final Object[] backupStripes = new Object[BACKUP_STRIPES];
    private final TxStats stats = new TxStats();
    private volatile HistoryRecorder recorder;

    private Transactions(LockFreeReads reads, NodeAllocator allocator) {
        this.node = reads.node();
        this.reads = reads;
        this.allocator = allocator;
        this.placement = node.config().placement();
        int threads = node.config().threads();
        this.participants = new TxParticipant[threads];
        this.coordinators = new TxCoordinator[threads];
        this.randoms = new SplittableRandom[threads];
        SplittableRandom seeds = new SplittableRandom();
        for (int w = 0; w < threads; w++) {
            NodeWorker worker = node.worker(w);
            participants[w] = new TxParticipant(this, worker);
            coordinators[w] = new TxCoordinator(this, worker, participants[w]);
            randoms[w] = seeds.split();
        }
        for (int i = 0; i < BACKUP_STRIPES; i++) {
            backupStripes[i] = new Object();
        }
    }

    /**
     * Attaches transactions to the node of {@code reads} (its lock-free reads, which transactions
     * read with) and {@code allocator} (the node's object allocator): registers the LOCK reply and
     * TRUNCATE message handlers and, on every worker, the polling of its log rings and its
     * coordinator's timers. Attach every member before any of them commits.
     *
     * @throws IllegalArgumentException if the two belong to different nodes
     * @throws IllegalStateException    if the node has transactions attached already
     */
    public static Transactions attach(LockFreeReads reads, NodeAllocator allocator) {
        if (reads.node() != allocator.node()) {
            throw new IllegalArgumentException("the lock-free reads of node " + reads.node().id()
                + " and the allocator of node " + allocator.node().id() + " belong to different nodes");
        }
        Transactions transactions = new Transactions(reads, allocator);
        Node node = transactions.node;
        node.registerSystemHandler(TxRecordDescriptor.LOCK_REPLY, (worker, sender, type, payload, offset, length) ->
            transactions.coordinators[worker.index()].onLockReply(sender, payload, offset, length));
        node.registerSystemHandler(TxRecordDescriptor.TRUNCATE, (worker, sender, type, payload, offset, length) ->
            transactions.participants[worker.index()].onTruncateMessage(sender, payload, offset, length));
        for (int w = 0; w < transactions.participants.length; w++) {
            TxParticipant participant = transactions.participants[w];
            TxCoordinator coordinator = transactions.coordinators[w];
            NodeWorker context = node.worker(w);
            Worker worker = context.worker();
            // Pollers are added on their worker's thread; they run from the worker's next step.
            worker.execute(() -> worker.addPoller(() ->
                context.messenger().pollLog(participant, 64) + coordinator.poll()));
        }
        return transactions;
    }

    /**
     * Creates a transaction coordinated by {@code worker} (FaRM's {@code txCreate}).
     *
     * @throws IllegalStateException if called off {@code worker}'s thread or with another node's worker
     */
    public Transaction txCreate(NodeWorker worker) {
        requireOwnWorker(worker, "txCreate");
        return new Transaction(this, worker, coordinators[worker.index()]);
    }

    /**
     * Runs {@code body} in a new transaction on {@code worker} and commits it, retrying with a new
     * transaction after a randomized backoff while it aborts for a {@link AbortReason#retryable()
     * retryable} reason, up to {@value #DEFAULT_ATTEMPTS} attempts. See
     * {@link #execute(NodeWorker, int, Function)}.
     */
    public <T> CompletionStage<T> execute(NodeWorker worker, Function<Transaction, CompletionStage<T>> body) {
        return execute(worker, DEFAULT_ATTEMPTS, body);
    }

    /**
     * Runs {@code body} in a new transaction on {@code worker} and commits it once the body's
     * stage completes; the result is the body's. A retryable abort (of a read or of the commit)
     * runs the body again in a new transaction after a randomized, growing backoff, up to
     * {@code attempts} attempts in all; the stage then fails with a
     * {@link TransactionAbortedException} of the last reason. Any other failure of the body aborts
     * the transaction and fails the stage with it, at once. Completes on {@code worker}.
     *
     * @throws IllegalArgumentException if {@code attempts} is not positive
     * @throws IllegalStateException    if called off {@code worker}'s thread
     */
    public <T> CompletionStage<T> execute(NodeWorker worker, int attempts,
                                          Function<Transaction, CompletionStage<T>> body) {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts " + attempts + " out of range: 1 or more");
        }
        requireOwnWorker(worker, "execute");
        CompletableFuture<T> result = new CompletableFuture<>();
        attempt(worker, body, 1, attempts, result);
        return result;
    }

    private <T> void attempt(NodeWorker worker, Function<Transaction, CompletionStage<T>> body, int attempt,
                             int attempts, CompletableFuture<T> result) {
        Transaction transaction = txCreate(worker);
        CompletionStage<T> value;
        try {
            value = body.apply(transaction);
        } catch (RuntimeException e) {
            value = CompletableFuture.failedFuture(e);
        }
        value.thenCompose(v -> transaction.txCommit().thenApply(ignored -> v)).whenComplete((v, failure) -> {
            if (failure == null) {
                result.complete(v);
                return;
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
            if (!transaction.committed()) {
                try {
                    transaction.txAbort();
                } catch (IllegalStateException committing) {
                    // The commit is under way and decides by itself.
                }
            }
            if (cause instanceof TransactionAbortedException abort && abort.reason().retryable() && attempt < attempts) {
                retryAfterBackoff(worker, body, attempt, attempts, result);
            } else if (cause instanceof TransactionAbortedException abort && attempt > 1) {
                result.completeExceptionally(new TransactionAbortedException(abort.reason(), abort.address(),
                    "gave up after " + attempt + " attempts; the last: " + abort.getMessage(), abort));
            } else {
                result.completeExceptionally(cause);
            }
        });
    }

    private <T> void retryAfterBackoff(NodeWorker worker, Function<Transaction, CompletionStage<T>> body, int attempt,
                                       int attempts, CompletableFuture<T> result) {
        long range = Math.min(MAX_RETRY_BACKOFF_NANOS, MIN_RETRY_BACKOFF_NANOS << Math.min(attempt, 20));
        long due = System.nanoTime() + randoms[worker.index()].nextLong(range + 1);
        Runnable wait = new Runnable() {
            @Override
            public void run() {
                if (System.nanoTime() - due < 0) {
                    worker.worker().execute(this);
                } else {
                    attempt(worker, body, attempt + 1, attempts, result);
                }
            }
        };
        try {
            worker.worker().execute(wait);
        } catch (RejectedExecutionException stopping) {
            result.completeExceptionally(stopping);
        }
    }

    /**
     * The blocking facade of {@link #execute(NodeWorker, Function)}, for code outside workers:
     * runs on worker {@code workerIndex} and waits for the result.
     *
     * @throws IllegalStateException       if called on a worker thread (use {@link #execute})
     * @throws TransactionAbortedException if the transaction aborted for good
     */
    public <T> T executeBlocking(int workerIndex, Function<Transaction, CompletionStage<T>> body) {
        Blocking.requireOffWorker("executeBlocking");
        return Blocking.await(node.submit(workerIndex, worker -> execute(worker, body)));
    }

    /**
     * Allocates an array of {@code count} objects of {@code elementSize} bytes on this node, as
     * {@link Transaction#txAllocArray} does, but commits its zeroed elements in as many
     * transactions as the log rings need (a large array, such as a hashtable shard, does not fit
     * one transaction's records). The array is reachable only through the returned address, so
     * nobody sees it half made; if a commit fails, the allocation is freed and the stage fails.
     *
     * @throws IllegalArgumentException as {@link Transaction#txAllocArray}
     * @throws IllegalStateException    if called off {@code worker}'s thread
     */
    public CompletionStage<Long> allocateArray(NodeWorker worker, int elementSize, int count, long hintAddress) {
        requireOwnWorker(worker, "allocateArray");
        checkArray("allocateArray", worker, elementSize, count, hintAddress);
        int stride = ObjectLayout.storedSize(elementSize);
        int entry = TxRecordDescriptor.entryLength(elementSize, true);
        int budget = worker.node().messagingLayout().capacity(RingKind.LOG) / 4;
        int perCommit = Math.max(1, (budget / 2 - TxRecordDescriptor.headerLength(TxCoordinator.MAX_PIGGYBACKED)) / entry);
        return allocator.allocate(worker, stride * count, hintAddress).thenCompose(address ->
            adopt(worker, address, elementSize, 0, count, perCommit).handle((ignored, failure) -> {
                if (failure != null) {
                    freeQuietly(worker, address);
                    throw failure instanceof CompletionException c ? c : new CompletionException(failure);
                }
                return address;
            }));
    }

    private CompletionStage<Void> adopt(NodeWorker worker, long address, int elementSize, int from, int count,
                                        int perCommit) {
        if (from >= count) {
            return CompletableFuture.completedFuture(null);
        }
        int to = Math.min(count, from + perCommit);
        return execute(worker, transaction -> {
            transaction.adoptElements(address, elementSize, from, to, 0);
            return CompletableFuture.completedFuture(null);
        }).thenCompose(ignored -> adopt(worker, address, elementSize, to, count, perCommit));
    }

    void checkArray(String call, NodeWorker worker, int elementSize, int count, long hintAddress) {
        if (elementSize < 1 || elementSize > ObjectLayout.MAX_APPLICATION_SIZE || count < 1
            || (long) ObjectLayout.storedSize(elementSize) * count > SizeClasses.MAX_SIZE) {
            throw new IllegalArgumentException(call + " of " + count + " elements of " + elementSize
                + " bytes: accepted 1 or more elements of 1.." + ObjectLayout.MAX_APPLICATION_SIZE
                + " bytes whose stored sizes add up to at most " + SizeClasses.MAX_SIZE);
        }
        if (hintAddress != 0 && primaryOf(hintAddress) != worker.node().id()) {
            throw new IllegalArgumentException(call + " near " + GlobalAddress.toString(hintAddress)
                + ": arrays are allocated on the coordinating node, " + worker.node().id() + ", and the hint's primary is node "
                + primaryOf(hintAddress) + "; ship the transaction there (msgSend) or allocate without a hint");
        }
    }

    /** Records every transaction this node's workers commit from now on into {@code recorder} (null: stop). */
    public void recordHistory(HistoryRecorder recorder) {
        this.recorder = recorder;
    }

    /** The node's transaction counts. */
    public TxStats stats() {
        return stats;
    }

    /** The node. */
    public Node node() {
        return node;
    }

    /** The lock-free reads transactions read with. */
    public LockFreeReads reads() {
        return reads;
    }

    /** The node's object allocator. */
    public NodeAllocator allocator() {
        return allocator;
    }

    void record(Supplier<CommittedTransaction> transaction) {
        HistoryRecorder current = recorder;
        if (current != null) {
            current.record(transaction.get());
        }
    }

    InstallPacing pacing() {
        return pacing;
    }

    Object backupStripe(long address) {
        long h = (address >>> 6) * 0x9E3779B97F4A7C15L;
        return backupStripes[(int) (h >>> 54) & BACKUP_STRIPES - 1];
    }

    int primaryOf(long address) {
        return placement.primary(GlobalAddress.regionId(address));
    }

    /** The backups of {@code address}'s region: its replicas after the primary. */
    int[] backupsOf(long address) {
        ReplicaSet replicas = placement.replicas(GlobalAddress.regionId(address));
        int[] backups = new int[replicas.size() - 1];
        for (int i = 1; i < replicas.size(); i++) {
            backups[i - 1] = replicas.node(i);
        }
        return backups;
    }

    /** This node's copy of {@code address}'s region, which it holds (it is its primary). */
    MemorySegment localRegion(long address) {
        Region region = node.region(GlobalAddress.regionId(address));
        if (region == null) {
            throw new IllegalStateException("node " + node.id() + " holds no region " + GlobalAddress.toString(address));
        }
        return region.memory();
    }

    /** Frees an object a transaction allocated and did not commit; a failure is reported on the worker. */
    void freeQuietly(NodeWorker worker, long address) {
        allocator.free(worker, address).whenComplete((ignored, failure) -> {
            if (failure != null) {
                worker.worker().execute(() -> {
                    throw new IllegalStateException("object " + GlobalAddress.toString(address)
                        + " allocated by a transaction that did not commit could not be freed", failure);
                });
            }
        });
    }

    private void requireOwnWorker(NodeWorker worker, String call) {
        if (worker.node() != node || !worker.worker().inWorkerThread()) {
            throw new IllegalStateException(call + " must be called on the thread of a worker of node " + node.id()
                + " with that worker, not on " + Thread.currentThread().getName()
                + "; use node.submit or the CompletionStage continuations, which run there");
        }
    }
}
