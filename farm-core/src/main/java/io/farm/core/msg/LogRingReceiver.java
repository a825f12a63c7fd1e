package io.farm.core.msg;

import java.lang.foreign.MemorySegment;

/**
 * The receiver's side of one log ring (DESIGN §5, §7): delivers each record once, with its
 * position, and keeps it in the ring until it is {@linkplain #truncate(long) truncated}.
 * Truncation may come in any order; the head advances over the longest prefix of truncated
 * records, zeroing them, and freed space goes back to the sender through a {@link HeadReturn}
 * with the same half-ring rule as message rings. A record truncated out of order is marked
 * {@link RecordDescriptor#TRUNCATED} in its header until the head reaches it, so the ring's
 * memory alone tells live records from truncated ones.
 *
 * <pre>
 *   head            delivered                    (positions, monotonic)
 *    |  live or truncated  |  landed, not yet delivered  |  free (zero)
 * </pre>
 *
 * <p>Confined to the receiving worker.
 */
public final class LogRingReceiver {
    private final RingReader reader;
    private final int senderNode;
    private final int senderThread;
    private final HeadReturn headReturn;
    private long head;
    private boolean polling;
    private long delivered;

    /**
     * @param ring         the ring's memory in this node's region (a power of two of at least 4 KiB, zero when new)
     * @param senderNode   the node that writes the ring
     * @param senderThread the thread of that node that writes it
     * @param headReturn   gives freed space back to that thread
     */
    public LogRingReceiver(MemorySegment ring, int senderNode, int senderThread, HeadReturn headReturn) {
        this.reader = new RingReader(ring, "log ring of node " + senderNode + " thread " + senderThread);
        this.senderNode = senderNode;
        this.senderThread = senderThread;
        this.headReturn = headReturn;
    }

    /**
     * Delivers up to {@code limit} records that have landed and were not delivered yet, in the
     * order they were sent; returns how many were delivered. Records stay until truncated.
     *
     * @throws IllegalStateException if the ring holds something that is not a record, or when
     *                               called from {@code handler} (handlers may send and truncate, not poll)
     */
    public int poll(LogHandler handler, int limit) {
        if (polling) {
            throw new IllegalStateException(reader.name() + " polled from its own handler: handlers may send and truncate, not poll");
        }
        polling = true;
        int count = 0;
        try {
            // When delivered records fill the whole ring, the word at the cursor is the head's live record.
            while (count < limit && delivered - head < reader.capacity()) {
                long position = delivered;
                long header = reader.landed(position);
                if (header == 0) {
                    break;
                }
                // Advance first: the handler may truncate the record it is given.
                delivered = position + RingReader.span(header);
                if (!RecordDescriptor.hasFlag(header, RecordDescriptor.PADDING)) {
                    count++;
                    handler.onLogRecord(senderNode, senderThread, RecordDescriptor.type(header), position, reader.memory(),
                        reader.index(position) + RecordDescriptor.PAYLOAD_OFFSET, RecordDescriptor.payloadLength(header));
                }
            }
        } finally {
            polling = false;
            advanceHead();
        }
        return count;
    }

    /**
     * Truncates the delivered record at {@code position}: its space is freed as soon as every
     * record before it is truncated too.
     *
     * @throws IllegalArgumentException if {@code position} is not a delivered record that is not
     *                                  truncated yet (nothing changes)
     */
    public void truncate(long position) {
        if (position < head || position >= delivered) {
            throw new IllegalArgumentException(position < head
                ? "log record at position " + position + " of " + reader.name() + " is truncated already"
                : "log record at position " + position + " of " + reader.name() + " was not delivered: delivered records are at ["
                + head + ", " + delivered + ")");
        }
        long header = (position & (RecordDescriptor.ALIGNMENT - 1)) == 0 ? reader.header(position) : 0;
        if (header == 0 || !reader.isRecord(position, header)) {
            throw new IllegalArgumentException("position " + position + " of " + reader.name() + " is not the start of a log record");
        }
        if (RecordDescriptor.hasFlag(header, RecordDescriptor.TRUNCATED)) {
            throw new IllegalArgumentException("log record at position " + position + " of " + reader.name() + " is truncated already");
        }
        reader.flag(position, header, RecordDescriptor.TRUNCATED);
        advanceHead();
    }

    /** Frees the prefix of truncated records and paddings, then offers the space back to the sender. */
    private void advanceHead() {
        while (head < delivered) {
            long header = reader.header(head);
            if (!RecordDescriptor.hasFlag(header, RecordDescriptor.TRUNCATED | RecordDescriptor.PADDING)) {
                break;
            }
            reader.zero(head, header);
            head += RingReader.span(header);
        }
        headReturn.freed(head);
    }

    /** Position of the oldest record not truncated (or of the next record when all are). */
    public long head() {
        return head;
    }

    /** Position after the last delivered record. */
    public long delivered() {
        return delivered;
    }
}
