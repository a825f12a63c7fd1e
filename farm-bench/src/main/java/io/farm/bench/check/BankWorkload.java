package io.farm.bench.check;

import io.farm.core.Farm;
import io.farm.core.cluster.Node;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.node.Blocking;
import io.farm.core.object.ObjectBuffer;
import io.farm.core.tx.AbortReason;
import io.farm.core.tx.Transaction;
import io.farm.core.tx.Transactions;
import io.farm.core.tx.TxStats;
import io.farm.core.tx.history.History;
import io.farm.core.tx.history.HistoryRecorder;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * One node's part of the bank check. The node opens its share of the accounts (8-byte balances
 * of {@value #INITIAL_BALANCE}, allocated here so this node is their primary); then each of its
 * workers keeps {@value #OPERATIONS_PER_WORKER} operations in flight until a deadline, each
 * <ul>
 *   <li>{@value #FULL_AUDIT_PERCENT} %: an audit, which reads every account in one read-only
 *       transaction and checks that the total is the bank's and that no balance is negative;</li>
 *   <li>{@value #PARTIAL_AUDIT_PERCENT} %: a partial audit, which reads {@value #PARTIAL_AUDIT_ACCOUNTS}
 *       random accounts (usually of different primaries) in one read-only transaction and checks
 *       that none is negative: read-only transactions small enough to commit under contention,
 *       which the history checker relates to the transfers;</li>
 *   <li>the others: a transfer of a random amount between two random accounts, if the source's
 *       balance allows it.</li>
 * </ul>
 * Every transaction the node commits meanwhile is recorded for the serializability checker.
 *
 * <p>Operations run with {@link Transactions#execute}, which retries aborts; an operation that
 * still aborts is counted as given up and the worker goes on. The next operation is started
 * from the worker's queue, not from the completion of the last one, so the stack never grows.
 */
final class BankWorkload {
    /** Every account's balance once opened. */
    static final long INITIAL_BALANCE = 1000;
    /** Bytes of a balance: a little-endian long. */
    static final int BALANCE_SIZE = Long.BYTES;
    /** Percent of the operations that are audits of every account. */
    static final int FULL_AUDIT_PERCENT = 2;
    /** Percent of the operations that are partial audits. */
    static final int PARTIAL_AUDIT_PERCENT = 8;
    /** Accounts a partial audit reads (all, if the bank has fewer). */
    static final int PARTIAL_AUDIT_ACCOUNTS = 4;
    /** A transfer moves 1 .. this much. */
    static final int MAX_AMOUNT = 100;
    /** Operations each worker keeps in flight. */
    static final int OPERATIONS_PER_WORKER = 2;
    /** Attempts of an audit, which conflicts with every transfer: more than {@link Transactions#DEFAULT_ATTEMPTS}. */
    static final int AUDIT_ATTEMPTS = 64;
    /**
     * The commit rate per worker the history is sized for: far above what a worker reaches
     * (tens of thousands per second), so a full recorder means something went wrong, and the
     * check fails rather than pass a partial history.
     */
    static final int MAX_COMMITS_PER_WORKER_SECOND = 200_000;
    private static final int OPENED_PER_TRANSACTION = 32;
    private static final Duration SETUP_TIMEOUT = Duration.ofSeconds(60);

    private final Farm farm;
    private HistoryRecorder recorder;
    private long committedBefore;
    private long[] abortedBefore;

    BankWorkload(Farm farm) {
        this.farm = farm;
    }

    /** A balance's bytes. */
    static byte[] bytes(long balance) {
        return ByteBuffer.allocate(BALANCE_SIZE).order(ByteOrder.LITTLE_ENDIAN).putLong(balance).array();
    }

    /** The balance an account's buffer holds. */
    static long balance(ObjectBuffer account) {
        return ByteBuffer.wrap(account.toByteArray()).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** The share of {@code accounts} that node {@code node} of {@code nodes} opens: as even as can be. */
    static int share(int node, int nodes, int accounts) {
        return accounts / nodes + (node < accounts % nodes ? 1 : 0);
    }

    /** How many transactions each worker's history keeps for a workload of {@code seconds}. */
    static int historyCapacity(double seconds) {
        return (int) Math.min(Integer.MAX_VALUE, Math.ceil(seconds * MAX_COMMITS_PER_WORKER_SECOND) + 1024);
    }

    /**
     * Opens {@code count} accounts on this node, in transactions on worker 0, and reads back the
     * version each has then. Call off the workers.
     *
     * @throws IllegalStateException if a setup transaction does not commit in time
     */
    Accounts open(int count) {
        long[] addresses = new long[count];
        long[] versions = new long[count];
        for (int start = 0; start < count; start += OPENED_PER_TRANSACTION) {
            int batch = Math.min(OPENED_PER_TRANSACTION, count - start);
            long[] opened = await("opening accounts", worker -> farm.transactions().execute(worker, tx -> {
                List<CompletableFuture<ObjectBuffer>> allocations = new ArrayList<>(batch);
                for (int i = 0; i < batch; i++) {
                    allocations.add(tx.txAlloc(BALANCE_SIZE, 0).toCompletableFuture());
                }
                return CompletableFuture.allOf(allocations.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
                    long[] made = new long[batch];
                    for (int i = 0; i < batch; i++) {
                        ObjectBuffer account = allocations.get(i).join();
                        tx.txWrite(account, bytes(INITIAL_BALANCE));
                        made[i] = account.address();
                    }
                    return made;
                });
            }));
            System.arraycopy(opened, 0, addresses, start, batch);
            long[] read = await("reading the new accounts' versions", worker -> farm.transactions().execute(worker,
                tx -> readAll(tx, opened).thenApply(accounts -> accounts.stream().mapToLong(ObjectBuffer::version).toArray())));
            System.arraycopy(read, 0, versions, start, batch);
        }
        return new Accounts(addresses, versions);
    }

    /**
     * Starts recording every transaction this node commits, sized for a workload of
     * {@code seconds}, and counting commits and aborts from now on.
     */
    void startRecording(double seconds) {
        TxStats stats = farm.transactions().stats();
        committedBefore = stats.committed();
        abortedBefore = aborted(stats);
        recorder = new HistoryRecorder(historyCapacity(seconds));
        farm.transactions().recordHistory(recorder);
    }

    /** Stops recording; returns what was recorded. */
    History stopRecording() {
        farm.transactions().recordHistory(null);
        return recorder.history();
    }

    /** This node's commits and aborts since {@link #startRecording}, with its workers' {@code tally}. */
    NodeOutcome outcome(WorkloadTally tally, Audit finalAudit) {
        TxStats stats = farm.transactions().stats();
        long[] aborted = aborted(stats);
        for (int i = 0; i < aborted.length; i++) {
            aborted[i] -= abortedBefore[i];
        }
        return new NodeOutcome(stats.committed() - committedBefore, aborted, tally,
            finalAudit == null ? -1 : finalAudit.total(), finalAudit == null ? 0 : finalAudit.negative());
    }

    private static long[] aborted(TxStats stats) {
        long[] aborted = new long[AbortReason.values().length];
        for (AbortReason reason : AbortReason.values()) {
            aborted[reason.ordinal()] = stats.aborted(reason);
        }
        return aborted;
    }

    /**
     * Runs transfers and audits of {@code accounts} (every account of the bank) on every worker
     * of this node until {@code deadlineNanos} ({@link System#nanoTime}); the stage completes
     * with the workers' tally once every operation ended.
     */
    CompletableFuture<WorkloadTally> run(long[] accounts, long deadlineNanos) {
        Node node = farm.node();
        List<CompletableFuture<WorkloadTally>> workers = new ArrayList<>();
        for (int w = 0; w < node.config().threads(); w++) {
            workers.add(node.submit(w, worker -> new WorkerRun(worker, accounts, deadlineNanos).start()));
        }
        return CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            WorkloadTally total = new WorkloadTally();
            workers.forEach(worker -> total.add(worker.join()));
            return total;
        });
    }

    /**
     * Audits every account on worker 0 and waits for the result: the final audit, once no
     * transfer runs. Call off the workers.
     *
     * @throws IllegalStateException if the audit does not commit in time
     */
    Audit finalAudit(long[] accounts) {
        return await("the final audit", worker -> farm.transactions().execute(worker, AUDIT_ATTEMPTS, auditOf(accounts)));
    }

    private static Function<Transaction, CompletionStage<Audit>> auditOf(long[] accounts) {
        return tx -> readAll(tx, accounts).thenApply(read -> {
            long total = 0;
            int negative = 0;
            for (ObjectBuffer account : read) {
                long balance = balance(account);
                total += balance;
                negative += balance < 0 ? 1 : 0;
            }
            return new Audit(total, negative);
        });
    }

    /**
     * {@link Transactions#execute} of {@code body}, except that no attempt starts after
     * {@code deadlineNanos} but the first: an operation retrying at the end of the run gives up
     * with {@link RunOverException}, so the run ends soon after its deadline.
     */
    private <T> CompletionStage<T> executeUntil(NodeWorker worker, int attempts, long deadlineNanos,
                                                Function<Transaction, CompletionStage<T>> body) {
        int[] attempt = {0};
        return farm.transactions().execute(worker, attempts, tx -> {
            if (attempt[0]++ > 0 && System.nanoTime() - deadlineNanos >= 0) {
                return CompletableFuture.failedFuture(new RunOverException());
            }
            return body.apply(tx);
        });
    }

    /**
     * Reads every account at once; the stage completes with their buffers, in order, or fails
     * with the first failure (a read that completes after the transaction aborted fails only
     * because of that abort).
     */
    private static CompletableFuture<List<ObjectBuffer>> readAll(Transaction tx, long[] accounts) {
        ObjectBuffer[] read = new ObjectBuffer[accounts.length];
        CompletableFuture<List<ObjectBuffer>> all = new CompletableFuture<>();
        int[] pending = {accounts.length};
        for (int i = 0; i < accounts.length; i++) {
            int index = i;
            tx.txRead(accounts[i], BALANCE_SIZE).whenComplete((account, failure) -> {
                if (failure != null) {
                    all.completeExceptionally(failure);
                } else {
                    read[index] = account;
                    if (--pending[0] == 0) {
                        all.complete(List.of(read));
                    }
                }
            });
        }
        return all;
    }

    private <T> T await(String what, Function<NodeWorker, CompletionStage<T>> operation) {
        try {
            return Blocking.await(farm.node().submit(0, operation), SETUP_TIMEOUT);
        } catch (TimeoutException e) {
            throw new IllegalStateException(what + " on node " + farm.node().id() + " did not complete within " + SETUP_TIMEOUT);
        }
    }

    /** An operation that was still retrying when the run ended, and gave up. */
    static final class RunOverException extends RuntimeException {
        RunOverException() {
            super("the run ended while the operation was retrying", null, false, false);
        }
    }

    /** What an audit read: the sum of the balances and how many were negative. */
    record Audit(long total, int negative) {
    }

    /** One worker's operations, run on its thread. */
    private final class WorkerRun {
        private final NodeWorker worker;
        private final long[] accounts;
        private final long deadlineNanos;
        private final long expectedTotal;
        private final SplittableRandom random = new SplittableRandom();
        private final WorkloadTally tally = new WorkloadTally();
        private final CompletableFuture<WorkloadTally> done = new CompletableFuture<>();
        private int running = OPERATIONS_PER_WORKER;

        WorkerRun(NodeWorker worker, long[] accounts, long deadlineNanos) {
            this.worker = worker;
            this.accounts = accounts;
            this.deadlineNanos = deadlineNanos;
            this.expectedTotal = INITIAL_BALANCE * accounts.length;
        }

        CompletableFuture<WorkloadTally> start() {
            for (int i = 0; i < OPERATIONS_PER_WORKER; i++) {
                next();
            }
            return done;
        }

        private void next() {
            if (System.nanoTime() - deadlineNanos >= 0) {
                if (--running == 0) {
                    done.complete(tally);
                }
                return;
            }
            CompletionStage<?> operation;
            try {
                int kind = random.nextInt(100);
                if (kind < FULL_AUDIT_PERCENT) {
                    operation = executeUntil(worker, AUDIT_ATTEMPTS, deadlineNanos, auditOf(accounts))
                        .thenAccept(audit -> tally.countAudit(audit.total(), expectedTotal, audit.negative()));
                } else if (kind < FULL_AUDIT_PERCENT + PARTIAL_AUDIT_PERCENT) {
                    operation = executeUntil(worker, AUDIT_ATTEMPTS, deadlineNanos, auditOf(someAccounts()))
                        .thenAccept(audit -> tally.countPartialAudit(audit.negative()));
                } else {
                    operation = transfer();
                }
            } catch (RuntimeException e) {
                operation = CompletableFuture.failedFuture(e);
            }
            operation.whenComplete((ignored, failure) -> {
                if (failure != null) {
                    tally.countFailure(failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure);
                }
                try {
                    worker.worker().execute(this::next);
                } catch (RejectedExecutionException stopping) {
                    done.completeExceptionally(stopping);
                }
            });
        }

        /** {@value #PARTIAL_AUDIT_ACCOUNTS} distinct random accounts (all, if fewer). */
        private long[] someAccounts() {
            int count = Math.min(PARTIAL_AUDIT_ACCOUNTS, accounts.length);
            long[] some = new long[count];
            int chosen = 0;
            while (chosen < count) {
                long account = accounts[random.nextInt(accounts.length)];
                boolean fresh = true;
                for (int i = 0; i < chosen; i++) {
                    fresh &= some[i] != account;
                }
                if (fresh) {
                    some[chosen++] = account;
                }
            }
            return some;
        }

        private CompletionStage<Void> transfer() {
            int from = random.nextInt(accounts.length);
            int to = random.nextInt(accounts.length - 1);
            if (to >= from) {
                to++;
            }
            long amount = 1 + random.nextInt(MAX_AMOUNT);
            long source = accounts[from];
            long target = accounts[to];
            CompletionStage<Boolean> transfer = executeUntil(worker, Transactions.DEFAULT_ATTEMPTS, deadlineNanos,
                tx -> readAll(tx, new long[] {source, target}).thenApply(pair -> {
                    ObjectBuffer debit = pair.get(0);
                    long balance = balance(debit);
                    if (balance < amount) {
                        return false;
                    }
                    tx.txWrite(debit, bytes(balance - amount));
                    ObjectBuffer credit = pair.get(1);
                    tx.txWrite(credit, bytes(balance(credit) + amount));
                    return true;
                }));
            return transfer.thenAccept(moved -> {
                if (moved) {
                    tally.transfers++;
                } else {
                    tally.declined++;
                }
            });
        }
    }
}
