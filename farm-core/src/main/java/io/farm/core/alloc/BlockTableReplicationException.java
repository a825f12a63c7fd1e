package io.farm.core.alloc;

/**
 * A write to a region's block table (or its header) that did not reach every backup's copy of
 * the region: the backup was unreachable, or its copy could not be found. The allocation or free
 * that caused it fails with this exception; the message names the region, the bytes and every
 * backup that failed, the cause is the first backup's failure and the others are suppressed.
 */
public final class BlockTableReplicationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int regionId;

    /**
     * @param regionId the region whose block table write failed
     * @param message  what failed
     * @param cause    the first backup's failure
     */
    public BlockTableReplicationException(int regionId, String message, Throwable cause) {
        super(message, cause);
        this.regionId = regionId;
    }

    /** The region whose block table write failed. */
    public int regionId() {
        return regionId;
    }
}
