package io.farm.core.msg;

import io.farm.core.fabric.Completion;
import io.farm.core.fabric.FabricException;
import io.farm.core.fabric.FabricPort;
import io.farm.core.testing.ShmTempDirs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Behaviour of single message and log rings between two nodes, on the fabric a subclass
 * provides: node 0 thread 0 writes to node 1.
 */
public abstract class RingContract {
    static final int CAPACITY = 4096;
    static final Completion IGNORE = failure -> {
    };
    /** A payload whose record spans 120 bytes: 34 fit in the ring, 18 free more than half of it. */
    private static final int PAYLOAD = 100;
    private static final int SPAN = 120;

    @TempDir(factory = ShmTempDirs.class)
    Path dir;
    MessagingCluster cluster;
    FabricPort senderPort;
    FabricPort receiverPort;

    /** The fabric under test. */
    protected abstract FabricFactory fabrics();

    @BeforeEach
    void start() {
        cluster = new MessagingCluster(new MessagingLayout(2, 1, CAPACITY, CAPACITY), dir, fabrics());
        senderPort = cluster.port(0);
        receiverPort = cluster.port(1);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    record Message(int type, byte[] payload) {
    }

    static MessageHandler collectInto(List<Message> messages) {
        return (node, thread, type, payload, offset, length) ->
            messages.add(new Message(type, payload.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE)));
    }

    /** A payload of {@code length} bytes whose content depends on {@code seed}. */
    static MemorySegment payload(int length, int seed) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (seed * 31 + i * 7 + 1);
        }
        return MemorySegment.ofArray(bytes);
    }

    static byte[] bytes(MemorySegment segment) {
        return segment.toArray(ValueLayout.JAVA_BYTE);
    }

    /** Performs what both ports posted: records land at the receiver, head updates at the sender. */
    void pump() {
        pump(senderPort, receiverPort);
    }

    /** Performs the sender's posted writes: afterwards every record offered has landed in the ring. */
    void land() {
        pump(senderPort);
    }

    /**
     * Polls the ports until every operation they posted was performed and completed: a write is
     * only known to have landed at its target once its completion ran, as with a real NIC.
     */
    static void pump(FabricPort... ports) {
        boolean outstanding;
        do {
            outstanding = false;
            for (FabricPort port : ports) {
                port.poll(Integer.MAX_VALUE);
                outstanding |= port.outstanding() > 0;
            }
        } while (outstanding);
    }

    static boolean allZero(MemorySegment memory) {
        return memory.mismatch(MemorySegment.ofArray(new byte[(int) memory.byteSize()])) == -1;
    }

    long receiverWrites() {
        return receiverPort.counters().snapshot().writeOps();
    }

    long senderWrites() {
        return senderPort.counters().snapshot().writeOps();
    }

    long headCopy(RingKind kind) {
        return cluster.region(0).memory().get(RecordDescriptor.WORD_LAYOUT, cluster.layout().headSlotOffset(kind, 1, 0));
    }

    @Test
    void everyPayloadSizeFromZeroToTheMaximumRoundTripsIntact() {
        RingWriter writer = cluster.writer(RingKind.MESSAGE, 0, 0, 1, senderPort);
        MessageRingReceiver receiver = cluster.messageReceiver(0, 0, 1, receiverPort);
        int max = RecordDescriptor.maxPayloadLength(CAPACITY);
        long payloadBytes = 0;
        for (int size = 0; size <= max; size++) {
            MemorySegment src = payload(size, size);
            int type = size % 1000;
            // The receiver has caught up: the sender must have room for any record (the quarter-ring rule).
            assertTrue(writer.offer(type, src, 0, size, IGNORE), "no room for " + size + " bytes after the receiver caught up");
            land();
            List<Message> received = new ArrayList<>();
            assertEquals(1, receiver.poll(collectInto(received), 10));
            assertEquals(type, received.getFirst().type());
            assertArrayEquals(bytes(src), received.getFirst().payload(), "payload of " + size + " bytes");
            pump();
            payloadBytes += size;
        }
        assertTrue(writer.tail() > 10L * CAPACITY, "the test wraps the ring many times");
        assertTrue(allZero(cluster.ring(RingKind.MESSAGE, 0, 0, 1)), "a drained ring is zero");
        assertEquals(max + 1, senderPort.counters().snapshot().messageOps());
        assertEquals(payloadBytes, senderPort.counters().snapshot().messageBytes());
    }

    @Test
    void aPayloadOneByteAboveTheMaximumIsRefusedNamingTheMaximum() {
        RingWriter writer = cluster.writer(RingKind.MESSAGE, 0, 0, 1, senderPort);
        int max = RecordDescriptor.maxPayloadLength(CAPACITY);
        assertEquals(max, writer.maxPayloadLength());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> writer.offer(1, payload(max + 1, 0), 0, max + 1, IGNORE));
        assertTrue(e.getMessage().contains("maximum payload is " + max + " bytes"), e.getMessage());
        assertEquals(0, writer.tail());
        assertEquals(0, senderWrites());
        assertTrue(allZero(cluster.ring(RingKind.MESSAGE, 0, 0, 1)));
    }

    @Test
    void badTypesAndSourceRangesAreRefusedAndWriteNothing() {
        RingWriter writer = cluster.writer(RingKind.MESSAGE, 0, 0, 1, senderPort);
        MemorySegment src = payload(8, 0);
        assertThrows(IllegalArgumentException.class, () -> writer.offer(-1, src, 0, 8, IGNORE));
        assertThrows(IllegalArgumentException.class, () -> writer.offer(RecordDescriptor.MAX_TYPE + 1, src, 0, 8, IGNORE));
        assertThrows(IllegalArgumentException.class, () -> writer.offer(1, src, 1, 8, IGNORE));
        assertThrows(IllegalArgumentException.class, () -> writer.offer(1, src, 0, -1, IGNORE));
        assertEquals(0, senderWrites());
    }

    @Test
    void aFullRingRefusesOffersUntilTheReceiverHasFreedHalfOfIt() {
        RingWriter writer = cluster.writer(RingKind.MESSAGE, 0, 0, 1, senderPort);
        MessageRingReceiver receiver = cluster.messageReceiver(0, 0, 1, receiverPort);
        int fit = CAPACITY / SPAN;
        for (int i = 0; i < fit; i++) {
            assertTrue(writer.offer(i, payload(PAYLOAD, i), 0, PAYLOAD, IGNORE), "record " + i + " fits");
        }
        land();
        long writesWhenFull = senderWrites();
        assertFalse(writer.offer(fit, payload(PAYLOAD, fit), 0, PAYLOAD, IGNORE), "the ring is full");
        assertEquals(0, senderPort.outstanding(), "a refused offer posts nothing");
        List<Message> received = new ArrayList<>();
        int half = (CAPACITY / 2 + SPAN - 1) / SPAN;
        for (int i = 0; i < half - 1; i++) {
            assertEquals(1, receiver.poll(collectInto(received), 1));
            pump();
            assertFalse(writer.offer(fit, payload(PAYLOAD, fit), 0, PAYLOAD, IGNORE),
                "no room returned after freeing " + (i + 1) + " records, less than half the ring");
        }
        assertEquals(writesWhenFull, senderWrites(), "a refused offer writes nothing");
        assertEquals(1, receiver.poll(collectInto(received), 1));
        pump();
        assertTrue(writer.offer(fit, payload(PAYLOAD, fit), 0, PAYLOAD, IGNORE), "half the ring was freed");
        land();
        receiver.poll(collectInto(received), Integer.MAX_VALUE);
        assertEquals(fit + 1, received.size());
        for (int i = 0; i <= fit; i++) {
            assertEquals(i, received.get(i).type());
            assertArrayEquals(bytes(payload(PAYLOAD, i)), received.get(i).payload());
        }
    }

    @Test
    void theHeadCopyIsWrittenOnlyAfterHalfTheRingIsFreed() {
        RingWriter writer = cluster.writer(RingKind.MESSAGE, 0, 0, 1, senderPort);
        MessageRingReceiver receiver = cluster.messageReceiver(0, 0, 1, receiverPort);
        List<Message> received = new ArrayList<>();
        long returned = 0;
        int updates = 0;
        int sent = 0;
        while (received.size() < 200) {
            while (sent < 200 && writer.offer(sent, payload(PAYLOAD, sent), 0, PAYLOAD, IGNORE)) {
                sent++;
            }
            land();
            assertEquals(1, receiver.poll(collectInto(received), 1));
            assertEquals(returned, headCopy(RingKind.MESSAGE), "an update lands only when the receiver's port is polled");
            if (receiver.head() - returned >= CAPACITY / 2) {
                returned = receiver.head();
                updates++;
            }
            pump(receiverPort);
            assertEquals(updates, receiverWrites(), "updates after freeing " + receiver.head() + " bytes");
            assertEquals(returned, headCopy(RingKind.MESSAGE), "the sender's copy of the head");
        }
        assertTrue(updates >= 200 * SPAN / CAPACITY, "the ring wrapped several times");
    }

    @Test
    void aRecordIsInvisibleToTheReceiverUntilTheSendersPortPerformsItsWrite() {
        RingWriter writer = cluster.writer(RingKind.MESSAGE, 0, 0, 1, senderPort);
        MessageRingReceiver receiver = cluster.messageReceiver(0, 0, 1, receiverPort);
        MemorySegment ring = cluster.ring(RingKind.MESSAGE, 0, 0, 1);
        List<FabricException> outcomes = new ArrayList<>();
        assertTrue(writer.offer(9, payload(PAYLOAD, 5), 0, PAYLOAD, outcomes::add));
        assertEquals(1, senderPort.outstanding(), "the record's write is posted");
        List<Message> received = new ArrayList<>();
        assertEquals(0, receiver.poll(collectInto(received), 10), "delivered before the sender's port was polled");
        assertTrue(allZero(ring), "bytes of the record reached the ring before the sender's port was polled");
        assertEquals(0, receiverPort.poll(Integer.MAX_VALUE), "the receiver's port has nothing to do with it");
        assertEquals(0, receiver.poll(collectInto(received), 10));
        assertTrue(outcomes.isEmpty(), "the write completed before the sender's port was polled");

        assertEquals(1, senderPort.poll(Integer.MAX_VALUE));
        assertEquals(1, outcomes.size(), "the write completed in the poll that performed it");
        assertEquals(null, outcomes.getFirst());
        assertEquals(1, receiver.poll(collectInto(received), 10));
        assertEquals(9, received.getFirst().type());
        assertArrayEquals(bytes(payload(PAYLOAD, 5)), received.getFirst().payload());
    }

    @Test
    void aRecordThatWrapsLandsAfterItsPaddingInTheOrderPosted() {
        RingWriter writer = cluster.writer(RingKind.MESSAGE, 0, 0, 1, senderPort);
        MessageRingReceiver receiver = cluster.messageReceiver(0, 0, 1, receiverPort);
        MemorySegment ring = cluster.ring(RingKind.MESSAGE, 0, 0, 1);
        List<Message> received = new ArrayList<>();
        int fit = CAPACITY / SPAN;
        for (int i = 0; i < fit; i++) {
            assertTrue(writer.offer(i, payload(PAYLOAD, i), 0, PAYLOAD, IGNORE));
            land();
            assertEquals(1, receiver.poll(collectInto(received), 1));
            pump();
        }
        assertTrue(CAPACITY - writer.tail() < SPAN, "the next record does not fit before the ring's end");
        assertTrue(writer.offer(fit, payload(PAYLOAD, fit), 0, PAYLOAD, IGNORE));
        assertEquals(2, senderPort.outstanding(), "a padding write, then the record's write");

        assertEquals(1, senderPort.poll(1));
        assertEquals(0, receiver.poll(collectInto(received), 10), "only the padding has landed");
        assertEquals(CAPACITY, receiver.head(), "the receiver passed the padding to the ring's start");
        assertTrue(allZero(ring), "the padding is freed and the record is not in the ring yet");

        assertEquals(1, senderPort.poll(1));
        assertEquals(1, receiver.poll(collectInto(received), 10));
        assertEquals(fit, received.getLast().type());
        assertArrayEquals(bytes(payload(PAYLOAD, fit)), received.getLast().payload());
        assertEquals(writer.tail(), receiver.head());
    }

    @Test
    void freedSpaceReturnsToTheSenderOnlyWhenTheReceiversPortPerformsTheHeadUpdate() {
        RingWriter writer = cluster.writer(RingKind.MESSAGE, 0, 0, 1, senderPort);
        MessageRingReceiver receiver = cluster.messageReceiver(0, 0, 1, receiverPort);
        int fit = CAPACITY / SPAN;
        for (int i = 0; i < fit; i++) {
            assertTrue(writer.offer(i, payload(PAYLOAD, i), 0, PAYLOAD, IGNORE));
        }
        land();
        int half = (CAPACITY / 2 + SPAN - 1) / SPAN;
        assertEquals(half, receiver.poll(collectInto(new ArrayList<>()), half));
        assertEquals(1, receiverPort.outstanding(), "the head update is posted");
        assertEquals(0, headCopy(RingKind.MESSAGE), "the head update landed before the receiver's port was polled");
        assertEquals(0, senderPort.poll(Integer.MAX_VALUE), "the sender's port has nothing to do with it");
        assertFalse(writer.offer(fit, payload(PAYLOAD, fit), 0, PAYLOAD, IGNORE), "room before the head update landed");

        assertEquals(1, receiverPort.poll(Integer.MAX_VALUE));
        assertEquals(receiver.head(), headCopy(RingKind.MESSAGE));
        assertTrue(writer.offer(fit, payload(PAYLOAD, fit), 0, PAYLOAD, IGNORE), "no room after the head update landed");
    }

    @Test
    void aRecordIsDeliveredOnlyOnceItsTrailerHasLanded() {
        MessageRingReceiver receiver = cluster.messageReceiver(0, 0, 1, receiverPort);
        MemorySegment ring = cluster.ring(RingKind.MESSAGE, 0, 0, 1);
        int length = RecordDescriptor.recordLength(PAYLOAD);
        ring.set(RecordDescriptor.WORD_LAYOUT, 0, RecordDescriptor.header(length, 7, 0));
        MemorySegment.copy(payload(PAYLOAD, 3), 0, ring, RecordDescriptor.PAYLOAD_OFFSET, PAYLOAD);
        List<Message> received = new ArrayList<>();
        assertEquals(0, receiver.poll(collectInto(received), 10), "header and payload without the trailer");
        ring.set(RecordDescriptor.WORD_LAYOUT, RecordDescriptor.span(length) - RecordDescriptor.TRAILER_LENGTH,
            RecordDescriptor.trailer(length));
        assertEquals(1, receiver.poll(collectInto(received), 10));
        assertEquals(7, received.getFirst().type());
        assertArrayEquals(bytes(payload(PAYLOAD, 3)), received.getFirst().payload());
        assertTrue(allZero(ring));
    }

    @Test
    void aRingHoldingSomethingElseThanRecordsIsReportedCorrupt() {
        MessageRingReceiver receiver = cluster.messageReceiver(0, 0, 1, receiverPort);
        MemorySegment ring = cluster.ring(RingKind.MESSAGE, 0, 0, 1);
        ring.set(RecordDescriptor.WORD_LAYOUT, 0, RecordDescriptor.header(3, 1, 0));
        IllegalStateException tooShort = assertThrows(IllegalStateException.class, () -> receiver.poll(collectInto(new ArrayList<>()), 1));
        assertTrue(tooShort.getMessage().contains("corrupt at position 0"), tooShort.getMessage());
        ring.set(RecordDescriptor.WORD_LAYOUT, 0, RecordDescriptor.header(24, 1, 0));
        ring.set(RecordDescriptor.WORD_LAYOUT, 16, 0x1234L);
        IllegalStateException badTrailer = assertThrows(IllegalStateException.class, () -> receiver.poll(collectInto(new ArrayList<>()), 1));
        assertTrue(badTrailer.getMessage().contains("trailer is 0x1234"), badTrailer.getMessage());
    }

    @Test
    void aHandlerThatPollsItsOwnRingIsRefusedAndTheMessageIsConsumed() {
        RingWriter writer = cluster.writer(RingKind.MESSAGE, 0, 0, 1, senderPort);
        MessageRingReceiver receiver = cluster.messageReceiver(0, 0, 1, receiverPort);
        assertTrue(writer.offer(1, payload(PAYLOAD, 0), 0, PAYLOAD, IGNORE));
        assertTrue(writer.offer(2, payload(PAYLOAD, 1), 0, PAYLOAD, IGNORE));
        land();
        IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> receiver.poll((node, thread, type, payload, offset, length) -> receiver.poll(collectInto(new ArrayList<>()), 1), 1));
        assertTrue(e.getMessage().contains("polled from its own handler"), e.getMessage());
        assertEquals(SPAN, receiver.head(), "the first message was consumed");
        List<Message> received = new ArrayList<>();
        assertEquals(1, receiver.poll(collectInto(received), 10));
        assertEquals(2, received.getFirst().type());
    }

    // ---- log rings ----

    record LogRecord(int type, long position, byte[] payload) {
    }

    static LogHandler logInto(List<LogRecord> records) {
        return (node, thread, type, position, payload, offset, length) ->
            records.add(new LogRecord(type, position, payload.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE)));
    }

    @Test
    void logRecordsStayInTheRingUntilTruncated() {
        RingWriter writer = cluster.writer(RingKind.LOG, 0, 0, 1, senderPort);
        LogRingReceiver receiver = cluster.logReceiver(0, 0, 1, receiverPort);
        int fit = CAPACITY / SPAN;
        for (int i = 0; i < fit; i++) {
            assertTrue(writer.offer(i, payload(PAYLOAD, i), 0, PAYLOAD, IGNORE));
        }
        land();
        List<LogRecord> delivered = new ArrayList<>();
        assertEquals(fit, receiver.poll(logInto(delivered), Integer.MAX_VALUE));
        assertEquals(0, receiver.poll(logInto(delivered), Integer.MAX_VALUE), "each record is delivered once");
        pump();
        assertEquals(0, receiver.poll(logInto(delivered), Integer.MAX_VALUE));
        assertFalse(writer.offer(fit, payload(PAYLOAD, fit), 0, PAYLOAD, IGNORE), "delivered records still hold the ring");
        assertEquals(0, receiverWrites());
        MemorySegment ring = cluster.ring(RingKind.LOG, 0, 0, 1);
        for (int i = 0; i < fit; i++) {
            LogRecord record = delivered.get(i);
            assertEquals((long) i * SPAN, record.position());
            assertArrayEquals(bytes(payload(PAYLOAD, i)), record.payload());
            assertArrayEquals(record.payload(), bytes(ring.asSlice(record.position() + RecordDescriptor.PAYLOAD_OFFSET, PAYLOAD)),
                "record " + i + " is still in the ring");
        }
        int half = (CAPACITY / 2 + SPAN - 1) / SPAN;
        for (int i = 0; i < half - 1; i++) {
            receiver.truncate(delivered.get(i).position());
            pump();
            assertFalse(writer.offer(fit, payload(PAYLOAD, fit), 0, PAYLOAD, IGNORE));
        }
        receiver.truncate(delivered.get(half - 1).position());
        pump();
        assertTrue(writer.offer(fit, payload(PAYLOAD, fit), 0, PAYLOAD, IGNORE), "truncating half the ring returns space");
        land();
        assertEquals(1, receiver.poll(logInto(delivered), Integer.MAX_VALUE));
        for (int i = half; i <= fit; i++) {
            receiver.truncate(delivered.get(i).position());
        }
        assertTrue(allZero(ring), "a fully truncated log ring is zero");
    }

    @Test
    void outOfOrderTruncationFreesOnlyTheContiguousPrefix() {
        RingWriter writer = cluster.writer(RingKind.LOG, 0, 0, 1, senderPort);
        LogRingReceiver receiver = cluster.logReceiver(0, 0, 1, receiverPort);
        for (int i = 0; i < 4; i++) {
            assertTrue(writer.offer(i, payload(PAYLOAD, i), 0, PAYLOAD, IGNORE));
        }
        land();
        List<LogRecord> delivered = new ArrayList<>();
        assertEquals(4, receiver.poll(logInto(delivered), Integer.MAX_VALUE));
        long p0 = delivered.get(0).position();
        long p1 = delivered.get(1).position();
        long p2 = delivered.get(2).position();
        long p3 = delivered.get(3).position();
        MemorySegment ring = cluster.ring(RingKind.LOG, 0, 0, 1);

        receiver.truncate(p2);
        receiver.truncate(p1);
        assertEquals(p0, receiver.head(), "record 0 is live: nothing is freed");
        assertArrayEquals(bytes(payload(PAYLOAD, 1)), bytes(ring.asSlice(p1 + RecordDescriptor.PAYLOAD_OFFSET, PAYLOAD)));
        assertTrue(RecordDescriptor.hasFlag(ring.get(RecordDescriptor.WORD_LAYOUT, p1), RecordDescriptor.TRUNCATED));

        receiver.truncate(p0);
        assertEquals(p3, receiver.head(), "records 0..2 form the truncated prefix");
        assertTrue(allZero(ring.asSlice(0, p3)));
        assertArrayEquals(bytes(payload(PAYLOAD, 3)), bytes(ring.asSlice(p3 + RecordDescriptor.PAYLOAD_OFFSET, PAYLOAD)));
        receiver.truncate(p3);
        assertTrue(allZero(ring));
    }

    @Test
    void truncatingWhatIsNotALiveDeliveredRecordIsRefusedAndChangesNothing() {
        RingWriter writer = cluster.writer(RingKind.LOG, 0, 0, 1, senderPort);
        LogRingReceiver receiver = cluster.logReceiver(0, 0, 1, receiverPort);
        for (int i = 0; i < 3; i++) {
            assertTrue(writer.offer(i, payload(PAYLOAD, i), 0, PAYLOAD, IGNORE));
        }
        land();
        List<LogRecord> delivered = new ArrayList<>();
        assertEquals(2, receiver.poll(logInto(delivered), 2));
        long p0 = delivered.get(0).position();
        long p1 = delivered.get(1).position();
        long p2 = p1 + SPAN;
        MemorySegment ring = cluster.ring(RingKind.LOG, 0, 0, 1);
        byte[] before = bytes(ring);

        IllegalArgumentException notDelivered = assertThrows(IllegalArgumentException.class, () -> receiver.truncate(p2));
        assertTrue(notDelivered.getMessage().contains("was not delivered"), notDelivered.getMessage());
        IllegalArgumentException inside = assertThrows(IllegalArgumentException.class, () -> receiver.truncate(p0 + 8));
        assertTrue(inside.getMessage().contains("is not the start of a log record"), inside.getMessage());
        assertThrows(IllegalArgumentException.class, () -> receiver.truncate(p0 + 3));
        assertArrayEquals(before, bytes(ring));

        receiver.truncate(p1);
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> receiver.truncate(p1));
        assertTrue(twice.getMessage().contains("truncated already"), twice.getMessage());
        receiver.truncate(p0);
        IllegalArgumentException belowHead = assertThrows(IllegalArgumentException.class, () -> receiver.truncate(p0));
        assertTrue(belowHead.getMessage().contains("truncated already"), belowHead.getMessage());
        assertEquals(p2, receiver.head());
    }
}
