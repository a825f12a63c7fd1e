package io.farm.core.alloc;

/**
 * A region allocation that failed: the region could not be created here, or a backup did not
 * acknowledge its copy. The region is not used: its local copy is deleted, and backups that may
 * hold a copy are asked to drop it. The message names the region and every backup that failed;
 * the cause is the first backup's failure (an {@link io.farm.core.rpc.RpcException}), the others are suppressed.
 */
public final class RegionAllocationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int regionId;

    /**
     * @param regionId the region whose allocation failed
     * @param message  what failed
     * @param cause    the first failure
     */
    public RegionAllocationException(int regionId, String message, Throwable cause) {
        super(message, cause);
        this.regionId = regionId;
    }

    /** The region whose allocation failed. */
    public int regionId() {
        return regionId;
    }
}
