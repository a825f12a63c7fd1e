package io.farm.core.tx;

import io.farm.core.addr.GlobalAddress;

/**
 * A transaction aborted: nothing it wrote is visible and it holds no lock. Carries the typed
 * {@link AbortReason} and, when one object caused it, that object's address.
 */
public final class TransactionAbortedException extends RuntimeException {
    /** {@link #address()} when no single object caused the abort. */
    public static final long NO_ADDRESS = 0;

    private final AbortReason reason;
    private final long address;

    /**
     * @param reason  why
     * @param address the object that caused it, or {@link #NO_ADDRESS}
     * @param detail  what happened, for the message
     */
    public TransactionAbortedException(AbortReason reason, long address, String detail) {
        this(reason, address, detail, null);
    }

    /** As {@link #TransactionAbortedException(AbortReason, long, String)}, with the underlying failure. */
    public TransactionAbortedException(AbortReason reason, long address, String detail, Throwable cause) {
        super("transaction aborted (" + reason + ")"
            + (address == NO_ADDRESS ? "" : " at " + GlobalAddress.toString(address)) + ": " + detail, cause);
        this.reason = reason;
        this.address = address;
    }

    /** Why the transaction aborted. */
    public AbortReason reason() {
        return reason;
    }

    /** The object that caused the abort, or {@link #NO_ADDRESS}. */
    public long address() {
        return address;
    }
}
