package io.farm.core.msg;

import io.farm.core.fabric.Completion;
import io.farm.core.fabric.FabricException;
import io.farm.core.fabric.FabricPort;
import io.farm.core.region.RegionStore;
import io.farm.core.testing.ShmTempDirs;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeProperty;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import static io.farm.core.msg.RingContract.allZero;
import static io.farm.core.msg.RingContract.bytes;
import static io.farm.core.msg.RingContract.payload;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Any sequence of record sizes and any interleaving of sends, ring polls, truncations and polls
 * of either node's port, on the fabric a subclass provides: node 0 thread 0 writes a 4 KiB ring
 * of node 1. Runs of 100 to 1000 steps (evenly spread, not jqwik's usual short lists) wrap the
 * ring several times on average. The fabric is an emulated one, whose ports post writes and
 * perform them, in order, in their poll, each followed by its completion: so a record is visible
 * to the receiver exactly when its write's completion has run, and a head update reaches the
 * sender only when the receiver's port is polled.
 */
public abstract class RingPropertiesContract {
    private static final int CAPACITY = RingContract.CAPACITY;
    private static final int MAX = RecordDescriptor.maxPayloadLength(CAPACITY);

    /** Holds the cluster directory of each try; deleted after the property, even if a try was abandoned. */
    private Path triesDir;

    /** The fabric under test. */
    protected abstract FabricFactory fabrics();

    @BeforeProperty
    void createTriesDirectory() throws IOException {
        triesDir = ShmTempDirs.newDirectory();
    }

    @AfterProperty
    void deleteTriesDirectory() {
        RegionStore.deleteTree(triesDir);
    }

    sealed interface Step permits Offer, Poll, Truncate, PollSenderPort, PollReceiverPort {
    }

    record Offer(int size, int type) implements Step {
    }

    record Poll(int limit) implements Step {
    }

    /** Truncates the {@code pick mod n}-th of the n delivered records not yet truncated. */
    record Truncate(int pick) implements Step {
    }

    /** Performs up to {@code limit} of the sender's posted writes (records and paddings). */
    record PollSenderPort(int limit) implements Step {
    }

    /** Performs up to {@code limit} of the receiver's posted writes (head updates). */
    record PollReceiverPort(int limit) implements Step {
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

    private static Arbitrary<Step> portPolls() {
        return Arbitraries.oneOf(Arbitraries.integers().between(1, 4).map(PollSenderPort::new),
            Arbitraries.integers().between(1, 2).map(PollReceiverPort::new));
    }

    @Provide
    Arbitrary<List<Step>> messageSteps() {
        return Arbitraries.frequencyOf(Tuple.of(3, offers()), Tuple.of(2, polls()), Tuple.of(3, portPolls()))
            .list().ofMinSize(100).ofMaxSize(1000)
            .withSizeDistribution(RandomDistribution.uniform());
    }

    @Provide
    Arbitrary<List<Step>> logSteps() {
        Arbitrary<Step> truncations = Arbitraries.integers().between(0, 1000).map(Truncate::new);
        return Arbitraries.frequencyOf(Tuple.of(3, offers()), Tuple.of(2, polls()), Tuple.of(3, truncations),
            Tuple.of(3, portPolls())).list().ofMinSize(100).ofMaxSize(1000)
            .withSizeDistribution(RandomDistribution.uniform());
    }

    /**
     * After a refused offer although the receiver had taken every record offered: the refusal is
     * only right while a head update is on its way. Lands everything posted and lets the
     * receiver return its head ({@code returnHead} polls its ring without delivering), after
     * which the quarter-ring rule says any record fits.
     */
    private static void landEverything(FabricPort senderPort, FabricPort receiverPort, Runnable returnHead) {
        RingContract.pump(senderPort, receiverPort);
        returnHead.run();
        RingContract.pump(receiverPort);
    }

    record Sent(int type, byte[] payload) {
    }

    @Property(tries = 40)
    void aMessageRingDeliversExactlyTheAcceptedRecordsInOrderAndEndsZero(@ForAll("messageSteps") List<Step> steps)
        throws IOException {
        Path dir = Files.createTempDirectory(triesDir, "try-");
        try (MessagingCluster cluster = new MessagingCluster(new MessagingLayout(2, 1, CAPACITY, CAPACITY), dir, fabrics())) {
            FabricPort senderPort = cluster.port(0);
            FabricPort receiverPort = cluster.port(1);
            RingWriter writer = cluster.writer(RingKind.MESSAGE, 0, 0, 1, senderPort);
            MessageRingReceiver receiver = cluster.messageReceiver(0, 0, 1, receiverPort);
            ArrayDeque<Sent> expected = new ArrayDeque<>();
            Landed landed = new Landed();
            MessageHandler check = (node, thread, type, payload, offset, length) -> {
                Sent next = expected.pollFirst();
                assertTrue(next != null, "a record was delivered that was not sent");
                landed.delivered();
                assertEquals(next.type(), type);
                assertArrayEquals(next.payload(), bytes(payload.asSlice(offset, length)));
            };
            int seed = 0;
            for (Step step : steps) {
                switch (step) {
                    case Offer(int size, int type) -> {
                        MemorySegment src = payload(size, seed++);
                        boolean accepted = writer.offer(type, src, 0, size, landed);
                        if (!accepted && receiver.head() == writer.tail()) {
                            landEverything(senderPort, receiverPort, () -> receiver.poll(check, 0));
                            accepted = writer.offer(type, src, 0, size, landed);
                            assertTrue(accepted, "refused although the receiver had caught up and its head update landed");
                        }
                        if (accepted) {
                            expected.addLast(new Sent(type, bytes(src)));
                        }
                    }
                    case Poll(int limit) -> {
                        int visible = landed.count();
                        assertEquals(Math.min(limit, visible), receiver.poll(check, limit),
                            "delivered records other than the first of the " + visible + " whose write completed");
                    }
                    case PollSenderPort(int limit) -> senderPort.poll(limit);
                    case PollReceiverPort(int limit) -> receiverPort.poll(limit);
                    case Truncate _ -> throw new AssertionError("no truncation on a message ring");
                }
            }
            RingContract.pump(senderPort, receiverPort);
            assertEquals(expected.size(), receiver.poll(check, Integer.MAX_VALUE));
            assertTrue(expected.isEmpty(), expected.size() + " sent records were not delivered");
            assertTrue(allZero(cluster.ring(RingKind.MESSAGE, 0, 0, 1)), "a drained ring is zero");
        } finally {
            RegionStore.deleteTree(dir);
        }
    }

    @Property(tries = 40)
    void aLogRingDeliversEachRecordOnceAndFreesExactlyTheTruncatedPrefix(@ForAll("logSteps") List<Step> steps)
        throws IOException {
        Path dir = Files.createTempDirectory(triesDir, "try-");
        try (MessagingCluster cluster = new MessagingCluster(new MessagingLayout(2, 1, CAPACITY, CAPACITY), dir, fabrics())) {
            FabricPort senderPort = cluster.port(0);
            FabricPort receiverPort = cluster.port(1);
            RingWriter writer = cluster.writer(RingKind.LOG, 0, 0, 1, senderPort);
            LogRingReceiver receiver = cluster.logReceiver(0, 0, 1, receiverPort);
            ArrayDeque<Sent> expected = new ArrayDeque<>();
            Landed landed = new Landed();
            List<Long> live = new ArrayList<>();
            LogHandler check = (node, thread, type, position, payload, offset, length) -> {
                Sent next = expected.pollFirst();
                assertTrue(next != null, "a record was delivered that was not sent");
                landed.delivered();
                assertEquals(next.type(), type);
                assertArrayEquals(next.payload(), bytes(payload.asSlice(offset, length)));
                live.add(position);
            };
            int seed = 0;
            for (Step step : steps) {
                switch (step) {
                    case Offer(int size, int type) -> {
                        MemorySegment src = payload(size, seed++);
                        boolean accepted = writer.offer(type, src, 0, size, landed);
                        if (!accepted && receiver.head() == writer.tail()) {
                            landEverything(senderPort, receiverPort, () -> receiver.poll(check, 0));
                            accepted = writer.offer(type, src, 0, size, landed);
                            assertTrue(accepted, "refused although every record was truncated and the head update landed");
                        }
                        if (accepted) {
                            expected.addLast(new Sent(type, bytes(src)));
                        }
                    }
                    case Poll(int limit) -> {
                        int visible = landed.count();
                        assertEquals(Math.min(limit, visible), receiver.poll(check, limit),
                            "delivered records other than the first of the " + visible + " whose write completed");
                    }
                    case Truncate(int pick) -> {
                        if (!live.isEmpty()) {
                            receiver.truncate(live.remove(pick % live.size()));
                        }
                    }
                    case PollSenderPort(int limit) -> senderPort.poll(limit);
                    case PollReceiverPort(int limit) -> receiverPort.poll(limit);
                }
                long oldestLive = live.stream().mapToLong(Long::longValue).min().orElse(receiver.delivered());
                assertEquals(oldestLive, receiver.head(), "the head is the oldest record not truncated");
            }
            RingContract.pump(senderPort, receiverPort);
            assertEquals(expected.size(), receiver.poll(check, Integer.MAX_VALUE));
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

    /** Completion of every accepted record: counts the records whose write completed and that were not delivered yet. */
    private static final class Landed implements Completion {
        private int count;

        @Override
        public void complete(FabricException failure) {
            assertNull(failure, "a record's write failed");
            count++;
        }

        /** A record was delivered: its write must have completed. */
        void delivered() {
            assertTrue(count > 0, "a record was delivered before its write completed");
            count--;
        }

        int count() {
            return count;
        }
    }
}
