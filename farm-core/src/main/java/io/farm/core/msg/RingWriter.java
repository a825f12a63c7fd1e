package io.farm.core.msg;

import io.farm.core.fabric.Capability;
import io.farm.core.fabric.Completion;
import io.farm.core.fabric.FabricPort;

import java.lang.foreign.MemorySegment;

import static io.farm.core.msg.RecordDescriptor.ALIGNMENT;
import static io.farm.core.msg.RecordDescriptor.HEADER_LENGTH;
import static io.farm.core.msg.RecordDescriptor.PADDING;
import static io.farm.core.msg.RecordDescriptor.PAYLOAD_OFFSET;
import static io.farm.core.msg.RecordDescriptor.TRAILER_LENGTH;
import static io.farm.core.msg.RecordDescriptor.WORD_LAYOUT;

/**
 * The sender's side of one ring (FaRM NSDI'14 §3.1): appends records to a ring held by another
 * node (or this one) with one-sided writes, and never past its copy of the receiver's head.
 *
 * <p>The ring is {@code [ringOffset, ringOffset + capacity)} of the receiver's region named by
 * {@code target}. The sender keeps its tail, a monotonic byte count, and reads its copy of the
 * receiver's head from {@code headCopy}, an 8-byte word of the sender's own memory that the
 * receiver overwrites with one-sided writes (see {@link HeadReturn}); the copy only lags the
 * receiver's real head, so the sender never overwrites a record the receiver has not freed.
 *
 * <p>Each record is composed in {@code staging}, a local mirror of the ring (same capacity, same
 * offsets), and sent with one write from there. A write is posted: the record lands when the
 * port performs the write (on the emulated fabrics, in a later {@link FabricPort#poll} of the
 * sender's port, which then runs the record's completion), and its source is read then, not
 * when {@code offer} returns. So a write's source must stay unchanged until the write has
 * landed; a mirror slot is only rewritten after the receiver has consumed the record it held,
 * which it can only do after the record landed, and the sender learns of that only through a
 * head update; so this holds on every fabric. The caller's {@code src} is copied at once and
 * may be reused when {@code offer} returns.
 *
 * <p>Confined to the thread that owns {@code port}.
 */
public final class RingWriter {
    private static final Completion IGNORE = failure -> {
    };

    private final FabricPort port;
    private final Capability target;
    private final long ringOffset;
    private final int capacity;
    private final int mask;
    private final int maxPayload;
    private final MemorySegment headCopy;
    private final MemorySegment staging;
    private long tail;
    private long headCache;

    /**
     * @param port       the sending worker's port
     * @param target     capability of the receiver's region that holds the ring
     * @param ringOffset offset of the ring in that region, 8-aligned
     * @param capacity   ring capacity, a power of two of at least {@value MessagingLayout#MIN_RING_CAPACITY}
     * @param headCopy   the sender's copy of the receiver's head: an 8-aligned 8-byte word of memory
     *                   the receiver writes, zero while the ring is new
     * @param staging    local memory of at least {@code capacity} bytes, 8-aligned, used only by this writer
     */
    public RingWriter(FabricPort port, Capability target, long ringOffset, int capacity, MemorySegment headCopy,
                      MemorySegment staging) {
        if (capacity < MessagingLayout.MIN_RING_CAPACITY || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("ring capacity " + capacity + " is not a power of two of at least "
                + MessagingLayout.MIN_RING_CAPACITY);
        }
        if ((ringOffset & (ALIGNMENT - 1)) != 0 || ringOffset < 0 || ringOffset > target.size() - capacity) {
            throw new IllegalArgumentException("ring [" + ringOffset + ", +" + capacity + ") is not an 8-aligned range of " + target);
        }
        if (headCopy.byteSize() < Long.BYTES || (headCopy.address() & (ALIGNMENT - 1)) != 0) {
            throw new IllegalArgumentException("head copy must be an 8-aligned word, got " + headCopy);
        }
        if (staging.byteSize() < capacity || (staging.address() & (ALIGNMENT - 1)) != 0) {
            throw new IllegalArgumentException("staging must be 8-aligned and hold " + capacity + " bytes, got " + staging);
        }
        this.port = port;
        this.target = target;
        this.ringOffset = ringOffset;
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.maxPayload = RecordDescriptor.maxPayloadLength(capacity);
        this.headCopy = headCopy;
        this.staging = staging;
    }

    /**
     * Appends one record carrying {@code length} bytes of {@code src} at {@code offset}, posting
     * one one-sided write (plus an 8-byte padding write first when the record does not fit
     * before the ring's end); the receiver sees the record once the port has performed them.
     *
     * @param type       the handler id, 0 .. {@value RecordDescriptor#MAX_TYPE}
     * @param completion called from the port's poll when the record's write completed or failed
     * @return false, writing nothing, when the ring has no room for the record (back-pressure:
     *         retry after the receiver has freed space)
     * @throws IllegalArgumentException when {@code length} exceeds {@link #maxPayloadLength()}
     *                                  (the message names it) or another argument is out of range
     */
    public boolean offer(int type, MemorySegment src, long offset, int length, Completion completion) {
        checkRecord(type, src, offset, length);
        int recordLength = RecordDescriptor.recordLength(length);
        int span = RecordDescriptor.span(recordLength);
        int index = (int) tail & mask;
        int toEnd = capacity - index;
        int padding = span > toEnd ? toEnd : 0;
        if (!hasRoom(padding + span)) {
            return false;
        }
        if (padding > 0) {
            staging.set(WORD_LAYOUT, index, RecordDescriptor.header(padding, 0, PADDING));
            port.write(target, ringOffset + index, staging, index, HEADER_LENGTH, IGNORE);
            tail += padding;
            index = 0;
        }
        int payloadEnd = index + PAYLOAD_OFFSET + length;
        int trailerIndex = index + span - TRAILER_LENGTH;
        staging.set(WORD_LAYOUT, index, RecordDescriptor.header(recordLength, type, 0));
        MemorySegment.copy(src, offset, staging, index + PAYLOAD_OFFSET, length);
        if (trailerIndex > payloadEnd) {
            staging.asSlice(payloadEnd, trailerIndex - payloadEnd).fill((byte) 0);
        }
        staging.set(WORD_LAYOUT, trailerIndex, RecordDescriptor.trailer(recordLength));
        // One write: the fabric makes the trailer (its last word) visible after everything before it.
        port.write(target, ringOffset + index, staging, index, span, completion);
        tail += span;
        port.counters().recordMessage(length);
        return true;
    }

    /**
     * Checks the arguments of {@link #offer}.
     *
     * @throws IllegalArgumentException naming what is wrong and what is accepted
     */
    void checkRecord(int type, MemorySegment src, long offset, int length) {
        if (length < 0 || length > maxPayload) {
            throw new IllegalArgumentException("payload of " + length + " bytes is not accepted by a ring of " + capacity
                + " bytes: the maximum payload is " + maxPayload + " bytes");
        }
        if (type < 0 || type > RecordDescriptor.MAX_TYPE) {
            throw new IllegalArgumentException("record type " + type + " out of range: 0.." + RecordDescriptor.MAX_TYPE);
        }
        if (offset < 0 || offset > src.byteSize() - length) {
            throw new IllegalArgumentException("payload [" + offset + ", +" + length + ") is outside the source of "
                + src.byteSize() + " bytes");
        }
    }

    /** Whether {@code bytes} more fit before the head copy; re-reads the copy only when the cached one is short. */
    private boolean hasRoom(int bytes) {
        if (tail + bytes - headCache <= capacity) {
            return true;
        }
        // Acquire: pairs with the release of the receiver's head write, so the zeroing of the
        // freed space happened before any write this sender issues into it.
        long head = RecordDescriptor.getAcquire(headCopy, 0);
        if (head < headCache || head > tail) {
            throw new IllegalStateException("head copy " + head + " of ring at " + ringOffset + " on " + target
                + " is outside [" + headCache + ", " + tail + "]: the slot was overwritten by something else");
        }
        headCache = head;
        return tail + bytes - head <= capacity;
    }

    /** Largest payload a record of this ring can carry ({@link RecordDescriptor#maxPayloadLength(int)}). */
    public int maxPayloadLength() {
        return maxPayload;
    }

    /** Bytes appended so far (the tail), padding included. */
    public long tail() {
        return tail;
    }
}
