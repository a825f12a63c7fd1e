package io.farm.core.msg;

import java.lang.foreign.MemorySegment;

/**
 * The receiver's side of one message ring (FaRM NSDI'14 §3.1): polls the word at its head,
 * delivers each record once it has landed whole, then zeroes it and advances the head, and gives
 * freed space back to the sender through a {@link HeadReturn}.
 *
 * <p>Confined to the receiving worker.
 */
public final class MessageRingReceiver {
    private final RingReader reader;
    private final int senderNode;
    private final int senderThread;
    private final HeadReturn headReturn;
    private long head;
    private boolean polling;

    /**
     * @param ring         the ring's memory in this node's region (a power of two of at least 4 KiB, zero when new)
     * @param senderNode   the node that writes the ring
     * @param senderThread the thread of that node that writes it
     * @param headReturn   gives freed space back to that thread
     */
    public MessageRingReceiver(MemorySegment ring, int senderNode, int senderThread, HeadReturn headReturn) {
        this.reader = new RingReader(ring, "message ring of node " + senderNode + " thread " + senderThread);
        this.senderNode = senderNode;
        this.senderThread = senderThread;
        this.headReturn = headReturn;
    }

    /**
     * Delivers up to {@code limit} messages that have landed, in the order they were sent, and
     * frees them; returns how many were delivered.
     *
     * @throws IllegalStateException if the ring holds something that is not a record, or when
     *                               called from {@code handler} (handlers may send, not poll)
     */
    public int poll(MessageHandler handler, int limit) {
        if (polling) {
            throw new IllegalStateException(reader.name() + " polled from its own handler: handlers may send, not poll");
        }
        polling = true;
        int delivered = 0;
        try {
            while (delivered < limit) {
                long header = reader.landed(head);
                if (header == 0) {
                    break;
                }
                if (!RecordDescriptor.hasFlag(header, RecordDescriptor.PADDING)) {
                    delivered++;
                    try {
                        handler.onMessage(senderNode, senderThread, RecordDescriptor.type(header), reader.memory(),
                            reader.index(head) + RecordDescriptor.PAYLOAD_OFFSET, RecordDescriptor.payloadLength(header));
                    } finally {
                        free(header);
                    }
                } else {
                    free(header);
                }
            }
        } finally {
            polling = false;
            headReturn.freed(head);
        }
        return delivered;
    }

    private void free(long header) {
        reader.zero(head, header);
        head += RingReader.span(header);
    }

    /** Bytes freed so far: the position of the next record. */
    public long head() {
        return head;
    }
}
