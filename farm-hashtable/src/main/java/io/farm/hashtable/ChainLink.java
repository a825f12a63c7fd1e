package io.farm.hashtable;

import io.farm.core.addr.GlobalAddress;
import io.farm.core.object.ObjectLayout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A link to an overflow block: a fat pointer in {@value #BYTES} bytes instead of 16, so that a
 * block of two slots fits one line less (space utilization). The block's size is the table's,
 * so it is not stored; the incarnation is kept modulo 2^{@value #INCARNATION_BITS}, which a
 * reader checks itself ({@link #matches}): a stale link is mistaken for a current one only if
 * the block's slot was freed or re-incarnated 2^23 (8,388,608) times while one lookup or
 * transaction held the link, far beyond what a lookup's time bound allows.
 *
 * <pre>
 *   0             4                                      10
 *  +-------------+----------------------------------------+
 *  | region id   | incarnation mod 2^23 | offset / 64     |   (48 bits: incarnation << 25 | offset / 64)
 *  +-------------+----------------------------------------+
 *   all zero: no block (region 0 holds no objects)
 * </pre>
 * Little-endian.
 *
 * @param address     the block's address
 * @param incarnation the block's incarnation, modulo 2^{@value #INCARNATION_BITS}
 */
public record ChainLink(long address, long incarnation) {
    /** Bytes of a stored link. */
    public static final int BYTES = 10;
    /** Bits of the incarnation kept. */
    public static final int INCARNATION_BITS = 23;
    private static final int OFFSET_BITS = 25;
    private static final long INCARNATION_MASK = (1L << INCARNATION_BITS) - 1;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** A link to the block at {@code address} at incarnation {@code incarnation} (reduced). */
    public static ChainLink to(long address, long incarnation) {
        return new ChainLink(address, incarnation & INCARNATION_MASK);
    }

    /** Whether a block read at {@code incarnation} is the one this link points to. */
    public boolean matches(long incarnation) {
        return (incarnation & INCARNATION_MASK) == this.incarnation;
    }

    /**
     * Stores this link at {@code offset} of {@code object}.
     *
     * @throws IllegalArgumentException if the address is not on a line, or past 2 GiB in its region
     */
    public void write(byte[] object, int offset) {
        long regionOffset = GlobalAddress.offset(address) & 0xFFFF_FFFFL;
        if (regionOffset % ObjectLayout.LINE != 0 || regionOffset >>> 6 >= 1L << OFFSET_BITS) {
            throw new IllegalArgumentException("an overflow block at " + GlobalAddress.toString(address)
                + " cannot be linked: blocks start on a line within the first 2 GiB of their region");
        }
        long packed = incarnation << OFFSET_BITS | regionOffset >>> 6;
        MemorySegment segment = MemorySegment.ofArray(object);
        segment.set(INT, offset, GlobalAddress.regionId(address));
        segment.set(INT, offset + 4, (int) packed);
        segment.set(SHORT, offset + 8, (short) (packed >>> 32));
    }

    /** The link stored at {@code offset} of {@code object}, or null if there is none. */
    public static ChainLink read(byte[] object, int offset) {
        MemorySegment segment = MemorySegment.ofArray(object);
        int region = segment.get(INT, offset);
        long packed = segment.get(INT, offset + 4) & 0xFFFF_FFFFL | (segment.get(SHORT, offset + 8) & 0xFFFFL) << 32;
        if (region == 0 && packed == 0) {
            return null;
        }
        long address = GlobalAddress.of(region, (int) ((packed & (1L << OFFSET_BITS) - 1) << 6));
        return new ChainLink(address, packed >>> OFFSET_BITS);
    }

    /** Clears the link at {@code offset} of {@code object}. */
    public static void clear(byte[] object, int offset) {
        Arrays.fill(object, offset, offset + BYTES, (byte) 0);
    }
}
