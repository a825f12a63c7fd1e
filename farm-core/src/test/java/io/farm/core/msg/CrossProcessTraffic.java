package io.farm.core.msg;

import java.lang.foreign.MemorySegment;

/**
 * What the two processes of {@link ShmCrossProcessMessagingTest} exchange, known to both: node 1
 * (a child JVM, {@link SendingNodeMain}) sends numbered messages and log records to node 0 (the
 * test JVM), whose sizes and contents follow from their numbers; node 0 echoes every
 * {@value #ECHO_EVERY}th message back. Rings are the smallest there are, so the traffic wraps
 * them thousands of times and fills them.
 *
 * <pre>
 *  type          direction   payload
 *  DATA          1 -> 0      message(seq): the seq-th message
 *  LOG_BLOCKED   1 -> 0      int: the number of log records accepted, when the next one found the
 *                            log ring full (node 0 truncates only when told so, or at the end)
 *  END           1 -> 0      int: how many LOG_BLOCKED node 1 sent; nothing follows it
 *  ECHO          0 -> 1      the payload of DATA seq, for every seq that {@link #echoed(int)}
 *  FIN           0 -> 1      empty: node 0 received everything and its echoes have landed
 *  LOG (log ring) 1 -> 0     logRecord(seq): the seq-th log record
 * </pre>
 */
final class CrossProcessTraffic {
    static final int DATA = 1;
    static final int LOG_BLOCKED = 2;
    static final int END = 3;
    static final int ECHO = 4;
    static final int FIN = 5;
    static final int LOG = 6;
    static final int ECHO_EVERY = 8;
    /** Both nodes' messaging layout: one worker each, 4 KiB rings. */
    static final MessagingLayout LAYOUT = new MessagingLayout(2, 1, MessagingLayout.MIN_RING_CAPACITY,
        MessagingLayout.MIN_RING_CAPACITY);
    static final int MAX_MESSAGE = RecordDescriptor.maxPayloadLength(LAYOUT.capacity(RingKind.MESSAGE));
    static final int MAX_LOG_RECORD = RecordDescriptor.maxPayloadLength(LAYOUT.capacity(RingKind.LOG));
    /** Messages node 1 sends before node 0 starts polling: their records span more than the ring. */
    static final int BURST = 2 * ringFullOfMessages();

    private CrossProcessTraffic() {
    }

    /** Payload length of the seq-th item of a kind whose largest payload is {@code max}: the maximum, tiny ones, and spread ones. */
    static int size(int seq, int max) {
        return switch (seq % 5) {
            case 0 -> max;
            case 1 -> seq % 17;
            default -> (int) ((seq * 2_654_435_761L >>> 7) % (max + 1));
        };
    }

    /** The payload of DATA message {@code seq}. */
    static MemorySegment message(int seq) {
        return RingContract.payload(size(seq, MAX_MESSAGE), seq);
    }

    /** The payload of log record {@code seq}. */
    static MemorySegment logRecord(int seq) {
        return RingContract.payload(size(seq + 3, MAX_LOG_RECORD), ~seq);
    }

    /** Whether node 0 echoes message {@code seq}. */
    static boolean echoed(int seq) {
        return seq % ECHO_EVERY == 0;
    }

    /** How many of {@code messages} messages node 0 echoes. */
    static int echoes(int messages) {
        return (messages + ECHO_EVERY - 1) / ECHO_EVERY;
    }

    /** Number of the first messages whose records fill the message ring. */
    private static int ringFullOfMessages() {
        int capacity = LAYOUT.capacity(RingKind.MESSAGE);
        int bytes = 0;
        int seq = 0;
        while (bytes <= capacity) {
            bytes += RecordDescriptor.span(RecordDescriptor.recordLength(size(seq++, MAX_MESSAGE)));
        }
        return seq;
    }
}
