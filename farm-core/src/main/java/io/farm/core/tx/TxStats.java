package io.farm.core.tx;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts of one node's transactions, by outcome and abort reason; updated by its workers,
 * readable from any thread (each count is exact; a snapshot of several is not atomic).
 */
public final class TxStats {
    private final AtomicLong committed = new AtomicLong();
    private final AtomicLongArray aborted = new AtomicLongArray(AbortReason.values().length);
    private final AtomicLong outcomeUnknown = new AtomicLong();
    private final AtomicLong lateReplies = new AtomicLong();
    /** Records and messages sent, by {@link TxRecordDescriptor} type less LOCK. */
    private final AtomicLongArray sent = new AtomicLongArray(TxRecordDescriptor.TRUNCATE - TxRecordDescriptor.LOCK + 1);
    private final AtomicLong validationReads = new AtomicLong();

    void countCommit() {
        committed.incrementAndGet();
    }

    void countAbort(AbortReason reason) {
        aborted.incrementAndGet(reason.ordinal());
    }

    void countOutcomeUnknown() {
        outcomeUnknown.incrementAndGet();
    }

    void countSent(int type) {
        sent.incrementAndGet(type - TxRecordDescriptor.LOCK);
    }

    void countValidationRead() {
        validationReads.incrementAndGet();
    }

    /**
     * Records or messages of {@code type} this node sent ({@link TxRecordDescriptor#LOCK},
     * {@link TxRecordDescriptor#LOCK_REPLY}, {@link TxRecordDescriptor#COMMIT_BACKUP},
     * {@link TxRecordDescriptor#COMMIT_PRIMARY}, {@link TxRecordDescriptor#ABORT},
     * {@link TxRecordDescriptor#TRUNCATE}).
     *
     * @throws IllegalArgumentException if {@code type} is none of them
     */
    public long sent(int type) {
        if (type < TxRecordDescriptor.LOCK || type > TxRecordDescriptor.TRUNCATE) {
            throw new IllegalArgumentException("type " + type + " is no transaction record or message: accepted "
                + TxRecordDescriptor.LOCK + ".." + TxRecordDescriptor.TRUNCATE);
        }
        return sent.get(type - TxRecordDescriptor.LOCK);
    }

    /** One-sided reads of object headers this node's coordinators made to validate. */
    public long validationReads() {
        return validationReads.get();
    }

    void countLateReply() {
        lateReplies.incrementAndGet();
    }

    /** Transactions committed by this node's workers. */
    public long committed() {
        return committed.get();
    }

    /** Transactions aborted by this node's workers, every reason. */
    public long aborted() {
        long total = 0;
        for (int i = 0; i < aborted.length(); i++) {
            total += aborted.get(i);
        }
        return total;
    }

    /** Transactions aborted for {@code reason}. */
    public long aborted(AbortReason reason) {
        return aborted.get(reason.ordinal());
    }

    /** Aborts by reason, every reason present. */
    public Map<AbortReason, Long> abortsByReason() {
        Map<AbortReason, Long> byReason = new EnumMap<>(AbortReason.class);
        for (AbortReason reason : AbortReason.values()) {
            byReason.put(reason, aborted(reason));
        }
        return byReason;
    }

    /** Commits whose outcome is left to recovery ({@link CommitOutcomeUnknownException}). */
    public long outcomeUnknown() {
        return outcomeUnknown.get();
    }

    /** LOCK replies that arrived after their transaction timed out. */
    public long lateReplies() {
        return lateReplies.get();
    }

    @Override
    public String toString() {
        return "TxStats[committed " + committed() + ", aborted " + abortsByReason() + ", outcome unknown "
            + outcomeUnknown() + "]";
    }
}
