package io.farm.core.msg;

import io.farm.core.fabric.FabricPort;
import io.farm.core.region.RegionStore;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import static io.farm.core.msg.RingContract.IGNORE;
import static io.farm.core.msg.RingContract.allZero;
import static io.farm.core.msg.RingContract.bytes;
import static io.farm.core.msg.RingContract.payload;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Any sequence of record sizes and any interleaving of sends, polls and truncations, on the
 * fabric a subclass provides: node 0 thread 0 writes a 4 KiB ring of node 1, wrapping it many
 * times.
 */
public abstract class RingPropertiesContract {
    private static final int CAPACITY = RingContract.CAPACITY;
    private static final int MAX = RecordDescriptor.maxPayloadLength(CAPACITY);

    /** The fabric under test. */
    protected abstract FabricFactory fabrics();

    sealed interface Step permits Offer, Poll, Truncate {
    }

    record Offer(int size, int type) implements Step {
    }

    record Poll(int limit) implements Step {
    }

    /** Truncates the {@code pick mod n}-th of the n delivered records not yet truncated. */
    record Truncate(int pick) implements Step {
    }

    private static Arbitrary<Step> offers() {
        Arbitrary<Integer> sizes = Arbitraries.frequencyOf(
            Tuple.of(4, Arbitraries.integers().between(0, 64)),
            Tuple.of(4, Arbitraries.integers().between(0, MAX)),
            Tuple.of(1, Arbitraries.of(MAX - 7, MAX)));
        return Combinators.combine(sizes, Arbitraries.integers().between(0, RecordDescriptor.MAX_TYPE)).as(Offer::new);
    }

    private static Arbitrary<Step> polls() {
        return Arbitraries.integers().between(1, 6).map(Poll::new);
    }

    @Provide
    Arbitrary<List<Step>> messageSteps() {
        return Arbitraries.frequencyOf(Tuple.of(3, offers()), Tuple.of(2, polls())).list().ofMinSize(1).ofMaxSize(400);
    }

    @Provide
    Arbitrary<List<Step>> logSteps() {
        Arbitrary<Step> truncations = Arbitraries.integers().between(0, 1000).map(Truncate::new);
        return Arbitraries.frequencyOf(Tuple.of(3, offers()), Tuple.of(2, polls()), Tuple.of(3, truncations))
            .list().ofMinSize(1).ofMaxSize(400);
    }

    record Sent(int type, byte[] payload) {
    }

    @Property(tries = 60)
    void aMessageRingDeliversExactlyTheAcceptedRecordsInOrderAndEndsZero(@ForAll("messageSteps") List<Step> steps)
        throws IOException {
        Path dir = Files.createTempDirectory("farm-msg-ring");
        try (MessagingCluster cluster = new MessagingCluster(new MessagingLayout(2, 1, CAPACITY, CAPACITY), dir, fabrics())) {
            FabricPort senderPort = cluster.port(0);
            FabricPort receiverPort = cluster.port(1);
            RingWriter writer = cluster.writer(RingKind.MESSAGE, 0, 0, 1, senderPort);
            MessageRingReceiver receiver = cluster.messageReceiver(0, 0, 1, receiverPort);
            ArrayDeque<Sent> expected = new ArrayDeque<>();
            MessageHandler check = (node, thread, type, payload, offset, length) -> {
                Sent next = expected.pollFirst();
                assertTrue(next != null, "a record was delivered that was not sent");
                assertEquals(next.type(), type);
                assertArrayEquals(next.payload(), bytes(payload.asSlice(offset, length)));
            };
            int seed = 0;
            for (Step step : steps) {
                switch (step) {
                    case Offer(int size, int type) -> {
                        MemorySegment src = payload(size, seed++);
                        if (writer.offer(type, src, 0, size, IGNORE)) {
                            expected.addLast(new Sent(type, bytes(src)));
                        } else {
                            assertTrue(receiver.head() < writer.tail(), "refused although the receiver had caught up");
                        }
                    }
                    case Poll(int limit) -> {
                        int before = expected.size();
                        int delivered = receiver.poll(check, limit);
                        assertEquals(Math.min(limit, before), delivered);
                    }
                    case Truncate _ -> throw new AssertionError("no truncation on a message ring");
                }
                RingContract.pump(senderPort, receiverPort);
            }
            receiver.poll(check, Integer.MAX_VALUE);
            assertTrue(expected.isEmpty(), expected.size() + " sent records were not delivered");
            assertTrue(allZero(cluster.ring(RingKind.MESSAGE, 0, 0, 1)), "a drained ring is zero");
        } finally {
            RegionStore.deleteTree(dir);
        }
    }

    @Property(tries = 60)
    void aLogRingDeliversEachRecordOnceAndFreesExactlyTheTruncatedPrefix(@ForAll("logSteps") List<Step> steps)
        throws IOException {
        Path dir = Files.createTempDirectory("farm-msg-log");
        try (MessagingCluster cluster = new MessagingCluster(new MessagingLayout(2, 1, CAPACITY, CAPACITY), dir, fabrics())) {
            FabricPort senderPort = cluster.port(0);
            FabricPort receiverPort = cluster.port(1);
            RingWriter writer = cluster.writer(RingKind.LOG, 0, 0, 1, senderPort);
            LogRingReceiver receiver = cluster.logReceiver(0, 0, 1, receiverPort);
            ArrayDeque<Sent> expected = new ArrayDeque<>();
            List<Long> live = new ArrayList<>();
            LogHandler check = (node, thread, type, position, payload, offset, length) -> {
                Sent next = expected.pollFirst();
                assertTrue(next != null, "a record was delivered that was not sent");
                assertEquals(next.type(), type);
                assertArrayEquals(next.payload(), bytes(payload.asSlice(offset, length)));
                live.add(position);
            };
            int seed = 0;
            for (Step step : steps) {
                switch (step) {
                    case Offer(int size, int type) -> {
                        MemorySegment src = payload(size, seed++);
                        if (writer.offer(type, src, 0, size, IGNORE)) {
                            expected.addLast(new Sent(type, bytes(src)));
                        } else {
                            assertTrue(receiver.head() < writer.tail(), "refused although every record was truncated");
                        }
                    }
                    case Poll(int limit) -> assertEquals(Math.min(limit, expected.size()), receiver.poll(check, limit));
                    case Truncate(int pick) -> {
                        if (!live.isEmpty()) {
                            receiver.truncate(live.remove(pick % live.size()));
                        }
                    }
                }
                long oldestLive = live.stream().mapToLong(Long::longValue).min().orElse(receiver.delivered());
                assertEquals(oldestLive, receiver.head(), "the head is the oldest record not truncated");
                RingContract.pump(senderPort, receiverPort);
            }
            receiver.poll(check, Integer.MAX_VALUE);
            assertTrue(expected.isEmpty(), expected.size() + " sent records were not delivered");
            for (long position : live) {
                receiver.truncate(position);
            }
            assertEquals(writer.tail(), receiver.head());
            assertTrue(allZero(cluster.ring(RingKind.LOG, 0, 0, 1)), "a fully truncated ring is zero");
        } finally {
            RegionStore.deleteTree(dir);
        }
    }
}
