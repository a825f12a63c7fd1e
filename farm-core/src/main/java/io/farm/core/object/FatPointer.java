package io.farm.core.object;

import io.farm.core.addr.GlobalAddress;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A fat pointer to an object (FaRM NSDI'14 §3.5): its address, its application size and the
 * incarnation it had when the pointer was made. A read through it fails with
 * {@link ObjectFreedException} once the object was freed (its incarnation moved on), even when
 * the slot holds another object by then.
 *
 * <pre>
 *  stored form, 16 bytes
 *   0                              8                                          16
 *  +------------------------------+-------------------------------------------+
 *  |   address (GlobalAddress)    |  incarnation (44 bits) | size (20 bits)   |
 *  +------------------------------+-------------------------------------------+
 *                                  bits 63..20               bits 19..0
 * </pre>
 *
 * The size is at most {@link ObjectLayout#MAX_APPLICATION_SIZE}, below 2^20. An incarnation
 * counts the frees of one slot; 2^44 frees of one slot do not happen in the life of a region, so
 * a pointer whose incarnation needs more bits cannot be stored and {@link #write} refuses it.
 * Words are in the host's native byte order.
 *
 * @param address     the object's address
 * @param size        its application size, 0 .. {@link ObjectLayout#MAX_APPLICATION_SIZE}
 * @param incarnation the incarnation expected, 0 .. 2^63 - 1
 */
public record FatPointer(long address, int size, long incarnation) {
    /** Bytes of the stored form. */
    public static final int BYTES = 16;
    /** Offset of the address word in the stored form. */
    public static final int ADDRESS_OFFSET = 0;
    /** Offset of the word holding incarnation and size. */
    public static final int INCARNATION_SIZE_OFFSET = 8;
    /** Bits of the size in the stored form. */
    public static final int SIZE_BITS = 20;
    /** The largest incarnation the stored form holds. */
    public static final long MAX_STORED_INCARNATION = (1L << (Long.SIZE - SIZE_BITS)) - 1;

    private static final long SIZE_MASK = (1L << SIZE_BITS) - 1;

    /**
     * @throws IllegalArgumentException if the size or incarnation is out of range
     */
    public FatPointer {
        if (size < 0 || size > ObjectLayout.MAX_APPLICATION_SIZE) {
            throw new IllegalArgumentException("fat pointer size " + size + " out of range: 0.."
                + ObjectLayout.MAX_APPLICATION_SIZE);
        }
        if (incarnation < 0) {
            throw new IllegalArgumentException("fat pointer incarnation " + incarnation + " out of range: 0.." + Long.MAX_VALUE);
        }
    }

    /**
     * Stores this pointer at {@code offset} of {@code memory} (16 bytes).
     *
     * @throws IllegalArgumentException if the incarnation is above {@link #MAX_STORED_INCARNATION}; nothing is written
     */
    public void write(MemorySegment memory, long offset) {
        if (incarnation > MAX_STORED_INCARNATION) {
            throw new IllegalArgumentException("incarnation " + incarnation + " of " + this
                + " does not fit the stored form: 0.." + MAX_STORED_INCARNATION);
        }
        memory.set(ValueLayout.JAVA_LONG_UNALIGNED, offset + ADDRESS_OFFSET, address);
        memory.set(ValueLayout.JAVA_LONG_UNALIGNED, offset + INCARNATION_SIZE_OFFSET, incarnation << SIZE_BITS | size);
    }

    /**
     * The pointer stored at {@code offset} of {@code memory}.
     *
     * @throws IllegalArgumentException if the stored size is out of range (not a stored fat pointer)
     */
    public static FatPointer read(MemorySegment memory, long offset) {
        long address = memory.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + ADDRESS_OFFSET);
        long word = memory.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + INCARNATION_SIZE_OFFSET);
        return new FatPointer(address, (int) (word & SIZE_MASK), word >>> SIZE_BITS);
    }

    @Override
    public String toString() {
        return "FatPointer[" + GlobalAddress.toString(address) + ", size " + size + ", incarnation " + incarnation + "]";
    }
}
