package io.farm.core.msg;

import java.lang.foreign.MemorySegment;

import static io.farm.core.msg.RecordDescriptor.ALIGNMENT;
import static io.farm.core.msg.RecordDescriptor.HEADER_LENGTH;
import static io.farm.core.msg.RecordDescriptor.MIN_RECORD_LENGTH;
import static io.farm.core.msg.RecordDescriptor.PADDING;
import static io.farm.core.msg.RecordDescriptor.TRAILER_LENGTH;

/**
 * The receiver's view of the memory of one ring: finds the records that have landed and zeroes
 * the ones it frees (FaRM NSDI'14 §3.1). Positions are monotonic byte counts; the record at
 * position {@code p} starts at offset {@code p mod capacity} of the ring.
 *
 * <p>Used by {@link MessageRingReceiver} and {@link LogRingReceiver}, on the receiving worker only.
 */
final class RingReader {
    private final MemorySegment ring;
    private final int capacity;
    private final int mask;
    private final String name;

    /**
     * @param ring the ring's memory, a power-of-two number of bytes, 8-aligned
     * @param name how error messages name the ring
     */
    RingReader(MemorySegment ring, String name) {
        long size = ring.byteSize();
        if (size < MessagingLayout.MIN_RING_CAPACITY || size > MessagingLayout.MAX_RING_CAPACITY || Long.bitCount(size) != 1
            || (ring.address() & (ALIGNMENT - 1)) != 0) {
            throw new IllegalArgumentException(name + ": ring memory must be 8-aligned and a power of two of "
                + MessagingLayout.MIN_RING_CAPACITY + ".." + MessagingLayout.MAX_RING_CAPACITY + " bytes, got " + ring);
        }
        this.ring = ring;
        this.capacity = (int) size;
        this.mask = capacity - 1;
        this.name = name;
    }

    /**
     * The header of the record at {@code position} if it has landed completely, otherwise 0.
     * A padding record is complete as soon as its header is visible (it is a single word).
     *
     * @throws IllegalStateException if the ring holds something that is not a record there
     */
    long landed(long position) {
        int index = index(position);
        // Acquire: nothing of the record is read before its header is seen.
        long header = RecordDescriptor.getAcquire(ring, index);
        if (header == 0) {
            return 0;
        }
        int length = RecordDescriptor.length(header);
        if (RecordDescriptor.hasFlag(header, PADDING)) {
            if (length != capacity - index) {
                throw corrupt(position, header, "a padding record must reach the end of the ring");
            }
            return header;
        }
        if (length < MIN_RECORD_LENGTH || RecordDescriptor.span(length) > capacity - index) {
            throw corrupt(position, header, "its length does not fit the ring");
        }
        // Acquire: the trailer lands last; once it is seen, the payload before it is visible.
        long trailer = RecordDescriptor.getAcquire(ring, trailerIndex(index, length));
        if (trailer == 0) {
            return 0;
        }
        if (trailer != RecordDescriptor.trailer(length)) {
            throw corrupt(position, header, "its trailer is 0x" + Long.toHexString(trailer));
        }
        return header;
    }

    /** The header at {@code position} as last stored, without waiting for anything. */
    long header(long position) {
        return RecordDescriptor.getAcquire(ring, index(position));
    }

    /** Marks the record at {@code position}, whose header is {@code header}, with {@code flag}. */
    void flag(long position, long header, int flag) {
        long flagged = RecordDescriptor.header(RecordDescriptor.length(header), RecordDescriptor.type(header),
            RecordDescriptor.flags(header) | flag);
        RecordDescriptor.setRelease(ring, index(position), flagged);
    }

    /**
     * Zeroes the record at {@code position} whose header is {@code header}: the body first, then the
     * header (release), so a process that dies meanwhile leaves a header whose record is still
     * recognisable. A padding record is one word: the bytes after it were never written.
     */
    void zero(long position, long header) {
        int index = index(position);
        if (!RecordDescriptor.hasFlag(header, PADDING)) {
            ring.asSlice(index + HEADER_LENGTH, span(header) - HEADER_LENGTH).fill((byte) 0);
        }
        RecordDescriptor.setRelease(ring, index, 0L);
    }

    /**
     * Whether the record at {@code position} with header {@code header} is a whole record: not
     * padding, fitting the ring, and ending with its own trailer.
     */
    boolean isRecord(long position, long header) {
        int length = RecordDescriptor.length(header);
        int index = index(position);
        return !RecordDescriptor.hasFlag(header, PADDING) && length >= MIN_RECORD_LENGTH
            && RecordDescriptor.span(length) <= capacity - index
            && RecordDescriptor.getAcquire(ring, trailerIndex(index, length)) == RecordDescriptor.trailer(length);
    }

    /** Bytes of ring the record with header {@code header} spans. */
    static int span(long header) {
        return RecordDescriptor.span(RecordDescriptor.length(header));
    }

    private static int trailerIndex(int index, int length) {
        return index + RecordDescriptor.span(length) - TRAILER_LENGTH;
    }

    /** The ring's memory, for payload views. */
    MemorySegment memory() {
        return ring;
    }

    /** Offset in the ring of {@code position}. */
    int index(long position) {
        return (int) position & mask;
    }

    int capacity() {
        return capacity;
    }

    /** How messages name the ring. */
    String name() {
        return name;
    }

    private IllegalStateException corrupt(long position, long header, String why) {
        return new IllegalStateException(name + " is corrupt at position " + position + " (offset " + index(position)
            + "): header 0x" + Long.toHexString(header) + " is not a record, " + why);
    }
}
