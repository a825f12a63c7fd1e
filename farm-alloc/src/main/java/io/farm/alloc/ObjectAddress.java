package io.farm.alloc;

/**
 * Layout of the 64-bit address of an object, as the allocators hand it out and take it back.
 * This is the one descriptor of farm's global address layout (FaRM NSDI'14 §3.3): it lives here
 * because farm-alloc depends on nothing of farm's, and farm-core's {@code GlobalAddress} reads
 * addresses through it.
 *
 * <pre>
 *   63                          32 31                           0
 *  +------------------------------+------------------------------+
 *  |          region id           |     offset in the region     |
 *  +------------------------------+------------------------------+
 * </pre>
 *
 * The offset is below the region's size, which is at most 2 GiB, so it is a non-negative
 * {@code int}. {@link #NULL} (region 0, offset 0) is never an object's address, because region
 * id 0 is never allocated; the allocators use it for "no address" (no location hint, or no
 * memory without a new region).
 */
public final class ObjectAddress {
    /** The null address: no object. */
    public static final long NULL = 0L;

    private ObjectAddress() {
    }

    /**
     * The address of {@code offset} in region {@code regionId}.
     *
     * @throws IllegalArgumentException if {@code offset} is negative
     */
    public static long of(int regionId, int offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset " + offset + " out of range: 0.." + Integer.MAX_VALUE);
        }
        return (long) regionId << 32 | offset;
    }

    /** The region id of an address. */
    public static int regionId(long address) {
        return (int) (address >>> 32);
    }

    /** The offset of an address within its region (negative only for an address no allocator made). */
    public static int offset(long address) {
        return (int) address;
    }

    /** Human-readable form: {@code 0x<region id>+0x<offset>}, both in hex. */
    public static String toString(long address) {
        return "0x" + Integer.toHexString(regionId(address)) + "+0x" + Integer.toHexString(offset(address));
    }
}
