package io.farm.core.msg;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Layout of one record in a message or log ring (FaRM NSDI'14 §3.1, Figure 1). Every word is
 * little-endian and every record starts on an 8-byte boundary of its ring.
 *
 * <pre>
 *   0                   31 32          47 48          63   (bits of the little-endian header word)
 *  +----------------------+--------------+--------------+
 *  |    length L = 16 + n |     type     |    flags     |   header, 8 bytes, never 0 (L &gt;= 16)
 *  +----------------------+--------------+--------------+
 *  |                   payload, n bytes                 |
 *  |                        +---------------------------+
 *  |                        |  zero, up to 8-alignment  |
 *  +------------------------+---------------------------+
 *  |          L           |       MARKER "FARM"         |   trailer, 8 bytes, never 0
 *  +----------------------+-----------------------------+
 *   the record spans align8(L) bytes; the trailer is its last word
 * </pre>
 *
 * <ul>
 *   <li>{@code type} is an unsigned 16-bit handler id chosen by the layer above.</li>
 *   <li>{@code flags}: {@link #PADDING} marks a header-only record that fills the rest of the ring
 *       (the sender writes it when a record would straddle the end; its length is the distance
 *       to the end, a multiple of 8, it has no trailer and the bytes after its header are free,
 *       zero space);
 *       {@link #TRUNCATED} is set by the receiver of a log ring on a record it was told to
 *       truncate and cannot free yet because an earlier record is still live.</li>
 *   <li>The sender writes header, payload and trailer with one one-sided write whose last word
 *       (the trailer) lands last (DESIGN §4.1), and free ring space is kept zero: a non-zero
 *       trailer at {@code position + align8(L) - 8} therefore means the whole record has landed.
 *       The trailer repeats {@code L}, so a receiver can tell a finished record from corruption.
 *       {@code L} is exact rather than rounded so that the payload length is known.</li>
 *   <li>Aligned 8-byte words of a write land whole (true of DMA on x86 and of the emulated
 *       fabrics' copies of aligned data), so a non-zero header is a whole header.</li>
 * </ul>
 */
public final class RecordDescriptor {
    /** Bytes of the header word. */
    public static final int HEADER_LENGTH = Long.BYTES;
    /** Bytes of the trailer word. */
    public static final int TRAILER_LENGTH = Long.BYTES;
    /** Records start on, and span multiples of, this many bytes. */
    public static final int ALIGNMENT = Long.BYTES;
    /** Payload bytes of a record start at {@code recordOffset + PAYLOAD_OFFSET}. */
    public static final int PAYLOAD_OFFSET = HEADER_LENGTH;
    /** Length (and span) of a record with an empty payload, the smallest record. */
    public static final int MIN_RECORD_LENGTH = HEADER_LENGTH + TRAILER_LENGTH;
    /** Largest handler id ({@code type} is an unsigned 16-bit field). */
    public static final int MAX_TYPE = 0xFFFF;
    /** Flag of a header-only record that pads the ring to its end. */
    public static final int PADDING = 1;
    /** Flag the receiver of a log ring sets on a record truncated out of order. */
    public static final int TRUNCATED = 2;
    /** High 32 bits of every trailer: "FARM" in ASCII. */
    public static final int MARKER = 0x4641_524D;

    /** A little-endian 8-byte word; offsets must be 8-aligned. */
    static final ValueLayout.OfLong WORD_LAYOUT = ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** {@link #WORD_LAYOUT} with acquire/release access. */
    private static final VarHandle WORD = WORD_LAYOUT.varHandle();

    private RecordDescriptor() {
    }

    /** Length field of the record that carries {@code payloadLength} bytes. */
    public static int recordLength(int payloadLength) {
        return HEADER_LENGTH + payloadLength + TRAILER_LENGTH;
    }

    /** Bytes of ring a record of length field {@code length} spans: {@code length} rounded up to 8. */
    public static int span(int length) {
        return align(length);
    }

    /** Payload bytes of a record with header {@code header}. */
    public static int payloadLength(long header) {
        return length(header) - HEADER_LENGTH - TRAILER_LENGTH;
    }

    /**
     * Largest payload of a ring of {@code capacity} bytes: the one whose record spans
     * {@code capacity / 4} bytes. Why a quarter: the receiver returns space to the sender only
     * after freeing half the ring since its last update, so once the receiver has caught up and
     * its last update has landed (its port performed the write) the sender's copy of the head
     * lags by less than half the ring, and the sender sees just over half the ring free. A
     * record that does not fit before the ring's end first costs a padding of less than one
     * record. A record of at most a quarter of the ring plus its padding needs less than half
     * the ring, so it always fits then: a sender always progresses once its receiver has caught
     * up and the worker loops keep polling their ports.
     */
    public static int maxPayloadLength(int capacity) {
        return capacity / 4 - HEADER_LENGTH - TRAILER_LENGTH;
    }

    /** The header word of a record with length field {@code length}. */
    public static long header(int length, int type, int flags) {
        return (length & 0xFFFF_FFFFL) | (long) (type & 0xFFFF) << 32 | (long) (flags & 0xFFFF) << 48;
    }

    /** The trailer word of a record with length field {@code length}. */
    public static long trailer(int length) {
        return (long) MARKER << 32 | (length & 0xFFFF_FFFFL);
    }

    /** Record length field of a header word. */
    public static int length(long header) {
        return (int) header;
    }

    /** Type field of a header word, unsigned. */
    public static int type(long header) {
        return (int) (header >>> 32) & 0xFFFF;
    }

    /** Flags field of a header word. */
    public static int flags(long header) {
        return (int) (header >>> 48) & 0xFFFF;
    }

    /** Whether a header word has any of the flags in {@code mask} set. */
    public static boolean hasFlag(long header, int mask) {
        return (flags(header) & mask) != 0;
    }

    /** {@code n} rounded up to {@link #ALIGNMENT}. */
    public static int align(int n) {
        return (n + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /**
     * Loads the word at {@code offset} of {@code memory} with acquire semantics, followed by an
     * explicit acquire fence, so later loads of the record (including bulk copies) stay after it
     * (docs/decisions.md, "Acquire on memory segments").
     */
    static long getAcquire(MemorySegment memory, long offset) {
        long value = (long) WORD.getAcquire(memory, offset);
        VarHandle.acquireFence();
        return value;
    }

    /** Stores the word at {@code offset} of {@code memory} with release semantics. */
    static void setRelease(MemorySegment memory, long offset, long value) {
        WORD.setRelease(memory, offset, value);
    }
}
