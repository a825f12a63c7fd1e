package io.farm.core.addr;

import io.farm.alloc.ObjectAddress;

/**
 * A 64-bit global address in farm's shared address space (FaRM NSDI'14 §3.3): the region id
 * ({@link RegionId}) in the high 32 bits, the offset in the region in the low 32. The bit layout
 * has one descriptor, farm-alloc's {@link ObjectAddress} (the allocators hand these addresses out
 * and farm-alloc depends on nothing of farm-core's); this class reads it in farm-core's terms.
 *
 * The offset is always below the region size, which is at most 2 GiB, so it is a non-negative
 * {@code int}. Address {@link #NULL} (region 0, offset 0) is never a valid object address because
 * region id 0 is never allocated.
 */
public final class GlobalAddress {
    /** The null address. */
    public static final long NULL = ObjectAddress.NULL;

    private GlobalAddress() {
    }

    /** The address of {@code offset} in region {@code regionId}. */
    public static long of(int regionId, long offset) {
        if (offset < 0 || offset > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("offset " + offset + " out of range: 0.." + Integer.MAX_VALUE);
        }
        return ObjectAddress.of(regionId, (int) offset);
    }

    /** The region id of an address. */
    public static int regionId(long address) {
        return ObjectAddress.regionId(address);
    }

    /** The offset of an address within its region. */
    public static int offset(long address) {
        return ObjectAddress.offset(address);
    }

    /** Human-readable form: {@code <region>+0x<offset>}, the region as {@link RegionId#toString(int)} shows it. */
    public static String toString(long address) {
        return RegionId.toString(regionId(address)) + "+0x" + Integer.toHexString(offset(address));
    }
}
