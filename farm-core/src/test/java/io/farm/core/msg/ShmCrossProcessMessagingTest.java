package io.farm.core.msg;

import io.farm.core.fabric.FabricPort;
import io.farm.core.testing.NodeJvm;
import io.farm.core.testing.NodeJvms;
import io.farm.core.testing.ShmTempDirs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static io.farm.core.msg.CrossProcessTraffic.DATA;
import static io.farm.core.msg.CrossProcessTraffic.ECHO;
import static io.farm.core.msg.CrossProcessTraffic.END;
import static io.farm.core.msg.CrossProcessTraffic.FIN;
import static io.farm.core.msg.CrossProcessTraffic.LOG;
import static io.farm.core.msg.CrossProcessTraffic.LOG_BLOCKED;
import static io.farm.core.msg.RingContract.allZero;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Messaging between two processes on the shm fabric: this JVM is node 0 and a child JVM
 * ({@link SendingNodeMain}) is node 1, each with its own messaging region and fabric in one
 * cluster directory under /dev/shm. Node 1 sends thousands of messages and log records of
 * varied sizes, the maximum included, through 4 KiB rings (wrapping them over and over, under
 * back-pressure); node 0 echoes some messages and truncates log records only when node 1 reports
 * its log ring full. See {@link CrossProcessTraffic} for the protocol.
 */
class ShmCrossProcessMessagingTest {
    private static final int MESSAGES = 20_000;
    private static final int LOG_RECORDS = 4_000;
    private static final Duration CHILD_PATIENCE = Duration.ofSeconds(60);

    @TempDir(factory = ShmTempDirs.class)
    Path clusterDir;

    @RegisterExtension
    final NodeJvms nodes = new NodeJvms();

    @Test
    @Timeout(120)
    void everyMessageAndLogRecordOfAnotherProcessArrivesOnceInOrderIntactAndLogRecordsStayUntilTruncated() {
        try (ShmMessagingNode node = new ShmMessagingNode(clusterDir, 0, CrossProcessTraffic.LAYOUT)) {
            FabricPort port = node.openPort();
            try (Messenger messenger = node.messenger(port)) {
                NodeJvm child = nodes.start("node 1", SendingNodeMain.class, clusterDir.toString(),
                    Integer.toString(MESSAGES), Integer.toString(LOG_RECORDS));
                String burst = child.awaitLine("BURST", CHILD_PATIENCE);
                assertTrue(Integer.parseInt(burst.substring("BURST backlog=".length())) > 0, burst);

                Receiver receiver = new Receiver(messenger, logRing(node));
                receiver.run(port, child);

                String done = child.awaitLine("DONE", CHILD_PATIENCE);
                assertEquals(0, child.awaitExit(CHILD_PATIENCE), child.logTail());
                assertEquals("DONE messages=" + MESSAGES + " logRecords=" + LOG_RECORDS + " echoes="
                    + CrossProcessTraffic.echoes(MESSAGES) + " logBlocks=" + receiver.logBlockedMessages, done);
                assertTrue(receiver.logBlockedMessages > 0, "node 1 never found its log ring full");

                // Node 1 is gone and every write it issued was performed: nothing else arrives.
                assertEquals(0, messenger.poll(receiver::onMessage, Integer.MAX_VALUE), "a message arrived twice or unsent");
                assertEquals(0, messenger.pollLog(receiver::onLogRecord, Integer.MAX_VALUE), "a log record arrived twice or unsent");
                assertTrue(allZero(ring(node, RingKind.MESSAGE)), "the consumed message ring is zero");
                assertTrue(allZero(logRing(node)), "the fully truncated log ring is zero");
                RingContract.pump(port);
            } finally {
                port.close();
            }
        }
    }

    private static MemorySegment ring(ShmMessagingNode node, RingKind kind) {
        MessagingLayout layout = CrossProcessTraffic.LAYOUT;
        return node.region().memory().asSlice(layout.ringOffset(kind, 1, 0), layout.capacity(kind));
    }

    private static MemorySegment logRing(ShmMessagingNode node) {
        return ring(node, RingKind.LOG);
    }

    /** A delivered log record that node 0 has not truncated: where it is, and which it is. */
    private record LiveRecord(long position, int seq) {
    }

    /** Node 0's side: checks what arrives, echoes, and truncates the log ring in rounds. */
    private static final class Receiver {
        private final Messenger messenger;
        private final MemorySegment logRing;
        private final List<LiveRecord> live = new ArrayList<>();
        private final Random shuffle = new Random(7);
        private int received;
        private int logDelivered;
        /** Truncate every live record once this many were delivered; -1 while node 1 has not asked. */
        private int truncateAt = -1;
        private int logBlockedMessages;
        /** The count of the last LOG_BLOCKED: each is further than the one before. */
        private int lastBlockedAt = -1;
        private int endBlocks = -1;

        Receiver(Messenger messenger, MemorySegment logRing) {
            this.messenger = messenger;
            this.logRing = logRing;
        }

        /** Polls until node 1 sent everything, node 0 truncated every log record and FIN has landed. */
        void run(FabricPort port, NodeJvm child) {
            boolean finSent = false;
            while (!(finSent && port.outstanding() == 0 && messenger.backlog(1, RingKind.MESSAGE) == 0)) {
                boolean progress = port.poll(Integer.MAX_VALUE) > 0;
                progress |= messenger.poll(this::onMessage, 64) > 0;
                progress |= messenger.pollLog(this::onLogRecord, 64) > 0;
                boolean ended = endBlocks >= 0;
                if (truncateAt >= 0 && logDelivered >= truncateAt || ended && logDelivered == LOG_RECORDS && !live.isEmpty()) {
                    truncateEveryLiveRecord();
                    progress = true;
                }
                if (!finSent && ended && live.isEmpty() && logDelivered == LOG_RECORDS) {
                    assertEquals(MESSAGES, received, "END overtook messages");
                    assertEquals(endBlocks, logBlockedMessages, "LOG_BLOCKED messages node 1 sent and node 0 got");
                    messenger.send(1, FIN, MemorySegment.NULL, 0, 0);
                    finSent = true;
                }
                if (!progress) {
                    if (!child.isAlive()) {
                        throw new AssertionError(child + " exited while node 0 had received " + received
                            + " messages and " + logDelivered + " log records" + child.logTail());
                    }
                    Thread.yield();
                }
            }
        }

        void onMessage(int node, int thread, int type, MemorySegment payload, long offset, int length) {
            assertEquals(1, node);
            assertEquals(0, thread);
            assertEquals(-1, endBlocks, "a message of type " + type + " after END");
            switch (type) {
                case DATA -> {
                    int seq = received;
                    MemorySegment expected = CrossProcessTraffic.message(seq);
                    assertEquals(expected.byteSize(), length, "length of message " + seq);
                    assertEquals(-1, expected.mismatch(payload.asSlice(offset, length)), "content of message " + seq);
                    received++;
                    if (CrossProcessTraffic.echoed(seq)) {
                        messenger.send(1, ECHO, payload, offset, length);
                    }
                }
                case LOG_BLOCKED -> {
                    int accepted = payload.get(ValueLayout.JAVA_INT_UNALIGNED, offset);
                    assertTrue(accepted > lastBlockedAt && accepted < LOG_RECORDS,
                        "LOG_BLOCKED at " + accepted + " after LOG_BLOCKED at " + lastBlockedAt);
                    lastBlockedAt = accepted;
                    truncateAt = accepted;
                    logBlockedMessages++;
                }
                case END -> {
                    assertEquals(MESSAGES, received, "END before every message");
                    endBlocks = payload.get(ValueLayout.JAVA_INT_UNALIGNED, offset);
                }
                default -> throw new AssertionError("a message of unknown type " + type);
            }
        }

        void onLogRecord(int node, int thread, int type, long position, MemorySegment payload, long offset, int length) {
            assertEquals(1, node);
            assertEquals(LOG, type);
            int seq = logDelivered;
            assertTrue(seq < LOG_RECORDS, "more log records than node 1 sent");
            assertEquals(-1, CrossProcessTraffic.logRecord(seq).mismatch(payload.asSlice(offset, length)), "log record " + seq);
            live.add(new LiveRecord(position, seq));
            logDelivered++;
        }

        /**
         * Checks that every live record is still in the ring as it was sent, truncates them all in
         * a random order, and checks their space is zero. No head update can have reached node 1
         * in between (node 0's port is not polled here), so node 1 cannot have reused that space.
         */
        private void truncateEveryLiveRecord() {
            int capacity = (int) logRing.byteSize();
            List<long[]> spans = new ArrayList<>();
            for (LiveRecord record : live) {
                int index = (int) (record.position() & (capacity - 1));
                long header = logRing.get(RecordDescriptor.WORD_LAYOUT, index);
                MemorySegment expected = CrossProcessTraffic.logRecord(record.seq());
                assertEquals(LOG, RecordDescriptor.type(header), "type of live record " + record.seq());
                assertEquals(expected.byteSize(), RecordDescriptor.payloadLength(header), "length of live record " + record.seq());
                assertEquals(-1, expected.mismatch(logRing.asSlice(index + RecordDescriptor.PAYLOAD_OFFSET, expected.byteSize())),
                    "live log record " + record.seq() + " changed in the ring before it was truncated");
                spans.add(new long[] {index, RingReader.span(header)});
            }
            Collections.shuffle(live, shuffle);
            for (LiveRecord record : live) {
                messenger.truncateLog(1, record.position());
            }
            for (long[] span : spans) {
                assertTrue(allZero(logRing.asSlice(span[0], span[1])), "a truncated record's space is not zero");
            }
            live.clear();
            truncateAt = -1;
        }
    }
}
