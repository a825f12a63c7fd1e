package io.farm.core.tx.history;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Records committed transactions from many threads for the {@link SerializabilityChecker}.
 *
 * <p><b>Hot path.</b> {@link #record} takes no lock and touches no shared counter: each thread
 * appends to its own buffer (found through a {@link ThreadLocal}) and publishes the new size with
 * a release store. Only a thread's first record registers its buffer in a shared list.
 *
 * <p><b>Memory bound.</b> Each recording thread keeps at most {@code perThreadCapacity}
 * transactions; a buffer grows in chunks of 1,024 references as it fills. Beyond the bound,
 * further commits of that thread are counted as dropped, not stored, and the {@link History}
 * reports itself incomplete. A buffer lives as long as the recorder and there is one per thread
 * that ever recorded (meant for long-lived worker threads, not one virtual thread per
 * transaction), so memory is at most threads x perThreadCapacity records, each about 48 bytes
 * plus 16 bytes per read and 24 per write. Cycles found in an incomplete
 * history are still real violations (every edge between recorded transactions is exact); only
 * reads of versions that nobody recorded writing are no longer reported.
 *
 * <p>{@link #history} may be called at any time, from any thread: it returns every record whose
 * {@code record} call completed before {@code history} read that thread's buffer. For a history
 * that is complete, call it after every recording thread has finished (e.g. joined).
 */
public final class HistoryRecorder {
    private final int perThreadCapacity;
    private final List<ThreadHistory> threads = new CopyOnWriteArrayList<>();
    private final ThreadLocal<ThreadHistory> mine;

    /**
     * A recorder that keeps up to {@code perThreadCapacity} transactions per recording thread.
     *
     * @throws IllegalArgumentException if {@code perThreadCapacity} is not positive
     */
    public HistoryRecorder(int perThreadCapacity) {
        if (perThreadCapacity <= 0) {
            throw new IllegalArgumentException("per-thread capacity " + perThreadCapacity + " must be positive");
        }
        this.perThreadCapacity = perThreadCapacity;
        this.mine = ThreadLocal.withInitial(this::register);
    }

    /** The most transactions kept per recording thread. */
    public int perThreadCapacity() {
        return perThreadCapacity;
    }

    /** Records a committed transaction; called by the thread that reported its commit. */
    public void record(CommittedTransaction transaction) {
        if (transaction == null) {
            throw new NullPointerException("transaction");
        }
        mine.get().append(transaction);
    }

    /** The transactions recorded so far by every thread, and how many were dropped. */
    public History history() {
        List<CommittedTransaction> all = new ArrayList<>();
        long dropped = 0;
        for (ThreadHistory thread : threads) {
            thread.copyTo(all);
            dropped += thread.dropped();
        }
        return new History(all, dropped);
    }

    private ThreadHistory register() {
        ThreadHistory history = new ThreadHistory(perThreadCapacity);
        threads.add(history);
        return history;
    }
}
