package io.farm.core.tx.history;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;

/**
 * The transactions one thread recorded: a single writer (the owning thread) appends, any thread
 * may copy what was appended so far. Elements live in fixed-size chunks allocated as needed, up
 * to a capacity; once full, appends are counted as dropped.
 */
final class ThreadHistory {
    static final int CHUNK = 1024;
    private static final VarHandle SIZE;
    private static final VarHandle DROPPED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            SIZE = lookup.findVarHandle(ThreadHistory.class, "size", int.class);
            DROPPED = lookup.findVarHandle(ThreadHistory.class, "dropped", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int capacity;
    private final CommittedTransaction[][] chunks;
    /** Written only by the owner, with release after the element and its chunk are stored. */
    @SuppressWarnings("unused")
    private int size;
    /** Written only by the owner, opaque: a count, no data hangs on it. */
    @SuppressWarnings("unused")
    private long dropped;

    ThreadHistory(int capacity) {
        this.capacity = capacity;
        this.chunks = new CommittedTransaction[(capacity + CHUNK - 1) / CHUNK][];
    }

    /** Appends {@code transaction}; only the owning thread calls this. */
    void append(CommittedTransaction transaction) {
        int at = (int) SIZE.getOpaque(this);
        if (at == capacity) {
            DROPPED.setOpaque(this, (long) DROPPED.getOpaque(this) + 1);
            return;
        }
        CommittedTransaction[] chunk = chunks[at / CHUNK];
        if (chunk == null) {
            chunk = new CommittedTransaction[Math.min(CHUNK, capacity - at)];
            chunks[at / CHUNK] = chunk;
        }
        chunk[at % CHUNK] = transaction;
        // Release: a reader that acquires the new size sees the element and the chunk holding it.
        SIZE.setRelease(this, at + 1);
    }

    /** Adds what was appended so far to {@code into}; any thread. */
    void copyTo(List<CommittedTransaction> into) {
        int count = (int) SIZE.getAcquire(this);
        for (int i = 0; i < count; i++) {
            into.add(chunks[i / CHUNK][i % CHUNK]);
        }
    }

    long dropped() {
        return (long) DROPPED.getOpaque(this);
    }
}
