package io.farm.core.object;

import io.farm.core.addr.GlobalAddress;

/**
 * A lock-free read was aborted: one of its fabric reads took longer than
 * {@link LockFreeReads#MAX_READ_NANOS}, so its copy could mix versions whose 16-bit line
 * versions are equal (they wrap), or it found no consistent copy within
 * {@link LockFreeReads#RETRY_TIMEOUT_NANOS}.
 */
public final class LockFreeReadTimeoutException extends RuntimeException {
    private final long address;

    /**
     * @param address the object's address
     * @param why     what took too long
     */
    public LockFreeReadTimeoutException(long address, String why) {
        super("lock-free read of " + GlobalAddress.toString(address) + " aborted: " + why);
        this.address = address;
    }

    /** The object's address. */
    public long address() {
        return address;
    }
}
