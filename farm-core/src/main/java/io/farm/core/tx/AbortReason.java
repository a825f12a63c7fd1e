package io.farm.core.tx;

/** Why a transaction aborted ({@link TransactionAbortedException#reason()}). */
public enum AbortReason {
    /** An object the transaction wrote had a newer version at its primary than the one read. */
    CONFLICT(true),
    /** An object the transaction wrote was locked by another committing transaction. */
    LOCK_HELD(true),
    /** An object the transaction only read changed, or was locked, before the commit. */
    VALIDATION_FAILED(true),
    /** An object the transaction read was freed (or its fat pointer's incarnation is gone). */
    OBJECT_FREED(false),
    /** A participant is not the primary of an object in this configuration, or is unreachable. */
    CONFIGURATION_CHANGED(false),
    /** A read or a commit step took longer than its bound. */
    TIMEOUT(true);

    private final boolean retryable;

    AbortReason(boolean retryable) {
        this.retryable = retryable;
    }

    /**
     * Whether running the transaction again may commit: conflicts and timeouts pass; a freed
     * object or a changed configuration needs the application to look again.
     */
    public boolean retryable() {
        return retryable;
    }
}
