package io.farm.core.tx.history;

import java.util.List;

/**
 * A recorded history: committed transactions in no particular order, and how many committed
 * transactions the recorder dropped because a bound was reached.
 *
 * @param transactions the recorded transactions
 * @param dropped      committed transactions that were not recorded; when positive the history
 *                     is incomplete, and a version read from a dropped writer cannot be told from
 *                     a version nobody wrote
 */
public record History(List<CommittedTransaction> transactions, long dropped) {
    /**
     * @throws IllegalArgumentException if {@code dropped} is negative
     */
    public History {
        if (dropped < 0) {
            throw new IllegalArgumentException("dropped count " + dropped + " is negative");
        }
        transactions = List.copyOf(transactions);
    }

    /** A complete history of {@code transactions}. */
    public static History of(List<CommittedTransaction> transactions) {
        return new History(transactions, 0);
    }

    /** Whether every committed transaction was recorded. */
    public boolean complete() {
        return dropped == 0;
    }
}
