package io.farm.core.tx;

/**
 * The commit was decided (every lock taken, every read validated, every backup's COMMIT-BACKUP
 * record written) but no primary acknowledged its COMMIT-PRIMARY record: the primaries became
 * unreachable. Whether the transaction's writes become visible is recovery's decision (SOSP'15
 * §5); the application must not assume either outcome.
 */
public final class CommitOutcomeUnknownException extends RuntimeException {
    private final long transaction;

    /**
     * @param transaction the transaction's id
     * @param detail      what happened
     * @param cause       the last failure, or null
     */
    public CommitOutcomeUnknownException(long transaction, String detail, Throwable cause) {
        super("outcome of transaction " + Long.toHexString(transaction) + " unknown: " + detail, cause);
        this.transaction = transaction;
    }

    /** The transaction's id. */
    public long transaction() {
        return transaction;
    }
}
