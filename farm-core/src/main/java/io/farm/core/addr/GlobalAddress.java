package io.farm.core.addr;

/**
 * Layout of a 64-bit global address in farm's shared address space (FaRM NSDI'14 §3.3).
 *
 * <pre>
 *   63                          32 31                           0
 *  +------------------------------+------------------------------+
 *  |      region id (RegionId)    |     offset in the region     |
 *  +------------------------------+------------------------------+
 * </pre>
 *
 * The offset is unsigned but always below the region size, which is at most 2 GiB, so it
 * is a non-negative {@code int}. Address {@link #NULL} (region 0, offset 0) is never a
 * valid object address because region id 0 is never allocated.
 */
public final class GlobalAddress {
    /** The null address. */
    public static final long NULL = 0L;

    private GlobalAddress() {
    }

    /** The address of {@code offset} in region {@code regionId}. */
    public static long of(int regionId, long offset) {
        if (offset < 0 || offset > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("offset " + offset + " out of range: 0.." + Integer.MAX_VALUE);
        }
        return (long) regionId << 32 | offset;
    }

    /** The region id of an address. */
    public static int regionId(long address) {
        return (int) (address >>> 32);
    }

    /** The offset of an address within its region. */
    public static int offset(long address) {
        return (int) address;
    }

    /** Human-readable form: {@code <region>+0x<offset>}. */
    public static String toString(long address) {
        return RegionId.toString(regionId(address)) + "+0x" + Integer.toHexString(offset(address));
    }
}
