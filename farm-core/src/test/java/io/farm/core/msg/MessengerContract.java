package io.farm.core.msg;

import io.farm.core.fabric.Capability;
import io.farm.core.fabric.FabricException;
import io.farm.core.fabric.FabricPort;
import io.farm.core.fabric.PeerUnreachableException;
import io.farm.core.testing.ShmTempDirs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import static io.farm.core.msg.RingContract.bytes;
import static io.farm.core.msg.RingContract.payload;
import static io.farm.core.msg.RingContract.pump;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Behaviour of the per-worker {@link Messenger} on the fabric a subclass provides. */
public abstract class MessengerContract {
    private static final int CAPACITY = 4096;

    @TempDir(factory = ShmTempDirs.class)
    Path dir;

    /** The fabric under test. */
    protected abstract FabricFactory fabrics();

    private MessagingCluster cluster(int nodes, int threads) {
        return new MessagingCluster(new MessagingLayout(nodes, threads, CAPACITY, CAPACITY), dir, fabrics());
    }

    record Delivery(int senderNode, int senderThread, int type, byte[] payload) {
    }

    static MessageHandler collectInto(List<Delivery> deliveries) {
        return (node, thread, type, payload, offset, length) ->
            deliveries.add(new Delivery(node, thread, type, payload.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE)));
    }

    @Test
    void repliesReachTheWorkerThatSentTheRequest() {
        try (MessagingCluster cluster = cluster(2, 2)) {
            FabricPort[][] ports = new FabricPort[2][2];
            Messenger[][] messengers = new Messenger[2][2];
            for (int node = 0; node < 2; node++) {
                for (int worker = 0; worker < 2; worker++) {
                    ports[node][worker] = cluster.port(node);
                    messengers[node][worker] = cluster.messenger(node, worker, ports[node][worker]);
                }
            }
            MemorySegment ping = payload(4, 1);
            MemorySegment pong = payload(5, 2);
            assertTrue(messengers[0][1].trySend(1, 10, ping, 0, 4));
            pump(ports[0][1]);
            List<Delivery> requests = new ArrayList<>();
            assertEquals(0, messengers[1][0].poll(collectInto(requests), 10), "worker 0 of node 1 polls other rings");
            Messenger server = messengers[1][1];
            assertEquals(1, server.poll((node, thread, type, payload, offset, length) -> {
                requests.add(new Delivery(node, thread, type, bytes(payload.asSlice(offset, length))));
                server.send(node, 11, pong, 0, 5);
            }, 10));
            assertEquals(0, requests.getFirst().senderNode());
            assertEquals(1, requests.getFirst().senderThread());
            assertEquals(10, requests.getFirst().type());
            assertArrayEquals(bytes(ping), requests.getFirst().payload());

            pump(ports[1][1]);
            List<Delivery> replies = new ArrayList<>();
            assertEquals(0, messengers[0][0].poll(collectInto(replies), 10));
            assertEquals(1, messengers[0][1].poll(collectInto(replies), 10));
            assertEquals(1, replies.getFirst().senderNode());
            assertEquals(1, replies.getFirst().senderThread());
            assertEquals(11, replies.getFirst().type());
            assertArrayEquals(bytes(pong), replies.getFirst().payload());
            assertEquals(1, ports[0][1].counters().snapshot().messageOps());
            assertEquals(4, ports[0][1].counters().snapshot().messageBytes());
            for (Messenger[] row : messengers) {
                for (Messenger messenger : row) {
                    messenger.close();
                }
            }
        }
    }

    @Test
    void messagesAndLogRecordsLandAndCompleteOnlyWhenTheSendersPortIsPolled() {
        try (MessagingCluster cluster = cluster(2, 1)) {
            FabricPort senderPort = cluster.port(0);
            FabricPort receiverPort = cluster.port(1);
            try (Messenger sender = cluster.messenger(0, 0, senderPort);
                 Messenger receiver = cluster.messenger(1, 0, receiverPort)) {
                List<FabricException> outcomes = new ArrayList<>();
                sender.send(1, 4, payload(40, 7), 0, 40, outcomes::add);
                assertTrue(sender.trySendLog(1, 5, payload(24, 8), 0, 24, outcomes::add));
                List<Delivery> messages = new ArrayList<>();
                List<byte[]> logRecords = new ArrayList<>();
                LogHandler logged = (node, thread, type, position, payload, offset, length) ->
                    logRecords.add(bytes(payload.asSlice(offset, length)));
                assertEquals(0, receiver.poll(collectInto(messages), 10), "a message arrived before the sender's port was polled");
                assertEquals(0, receiver.pollLog(logged, 10), "a log record arrived before the sender's port was polled");
                assertEquals(0, receiverPort.poll(Integer.MAX_VALUE));
                assertTrue(outcomes.isEmpty(), "a write completed before the sender's port was polled");

                assertEquals(2, senderPort.poll(Integer.MAX_VALUE));
                assertEquals(Arrays.asList(null, null), outcomes, "both writes completed, in order, without failure");
                assertEquals(1, receiver.poll(collectInto(messages), 10));
                assertEquals(4, messages.getFirst().type());
                assertArrayEquals(bytes(payload(40, 7)), messages.getFirst().payload());
                assertEquals(1, receiver.pollLog(logged, 10));
                assertArrayEquals(bytes(payload(24, 8)), logRecords.getFirst());
            }
        }
    }

    @Test
    void theBacklogKeepsTheOrderOfSendsUnderBackPressure() {
        try (MessagingCluster cluster = cluster(2, 1)) {
            FabricPort senderPort = cluster.port(0);
            FabricPort receiverPort = cluster.port(1);
            Messenger sender = cluster.messenger(0, 0, senderPort);
            Messenger receiver = cluster.messenger(1, 0, receiverPort);
            Random random = new Random(42);
            List<byte[]> expected = new ArrayList<>();
            int max = sender.maxPayloadLength(RingKind.MESSAGE);
            for (int i = 0; i < 300; i++) {
                MemorySegment src = payload(random.nextInt(max + 1), i);
                sender.send(1, 1, src, 0, (int) src.byteSize());
                expected.add(bytes(src));
            }
            assertTrue(sender.backlog(1, RingKind.MESSAGE) > 200, "the ring filled up: the rest waits in the backlog");
            assertFalse(sender.trySend(1, 2, payload(0, 0), 0, 0), "a message may not overtake the backlog");
            pump(senderPort);

            List<Delivery> received = new ArrayList<>();
            int idle = 0;
            while (received.size() < expected.size()) {
                int got = receiver.poll(collectInto(received), 1 + random.nextInt(8));
                // A receiver that caught up has returned enough space for the backlog to move.
                idle = got == 0 ? idle + 1 : 0;
                assertTrue(idle < 2, "the backlog stalled with " + sender.backlog(1, RingKind.MESSAGE) + " messages");
                pump(receiverPort);
                sender.poll((node, thread, type, payload, offset, length) -> {
                }, 0);
                if (random.nextInt(4) == 0) {
                    MemorySegment src = payload(random.nextInt(64), expected.size());
                    if (sender.trySend(1, 1, src, 0, (int) src.byteSize())) {
                        expected.add(bytes(src));
                    }
                }
                pump(senderPort);
            }
            assertEquals(0, sender.backlog(1, RingKind.MESSAGE));
            assertEquals(expected.size(), received.size());
            for (int i = 0; i < expected.size(); i++) {
                assertArrayEquals(expected.get(i), received.get(i).payload(), "message " + i);
            }
            assertEquals(0, receiver.poll(collectInto(received), 10));
            assertEquals(expected.size(), senderPort.counters().snapshot().messageOps());
        }
    }

    @Test
    void badSendsAreRefusedWithoutTouchingTheBacklog() {
        try (MessagingCluster cluster = cluster(2, 1)) {
            Messenger sender = cluster.messenger(0, 0, cluster.port(0));
            int max = sender.maxPayloadLength(RingKind.MESSAGE);
            MemorySegment big = payload(max + 1, 0);
            for (int i = 0; i < 40; i++) {
                sender.send(1, 1, big, 0, max);
            }
            int backlog = sender.backlog(1, RingKind.MESSAGE);
            assertTrue(backlog > 0);
            IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class, () -> sender.send(1, 1, big, 0, max + 1));
            assertTrue(tooLong.getMessage().contains("maximum payload is " + max + " bytes"), tooLong.getMessage());
            assertThrows(IllegalArgumentException.class, () -> sender.trySend(1, 1, big, 0, max + 1));
            assertThrows(IllegalArgumentException.class, () -> sender.sendLog(1, -1, big, 0, 1));
            IllegalArgumentException noSuchNode = assertThrows(IllegalArgumentException.class, () -> sender.send(2, 1, big, 0, 1));
            assertTrue(noSuchNode.getMessage().contains("node 2 is not in the cluster: 0..1"), noSuchNode.getMessage());
            assertThrows(IllegalArgumentException.class, () -> sender.truncateLog(-1, 0));
            assertEquals(backlog, sender.backlog(1, RingKind.MESSAGE));
        }
    }

    @Test
    void aMessengerNeedsItsNodesMessagingRegionAndAnExistingWorker() {
        try (MessagingCluster cluster = cluster(2, 1)) {
            FabricPort port = cluster.port(1);
            IntFunction<Capability> capabilities = Messenger.capabilities(cluster.fabric(1));
            IllegalArgumentException wrongRegion = assertThrows(IllegalArgumentException.class,
                () -> new Messenger(cluster.layout(), 1, 0, port, cluster.region(0), capabilities));
            assertTrue(wrongRegion.getMessage().contains("is not the messaging region of node 1"), wrongRegion.getMessage());
            assertThrows(IllegalArgumentException.class,
                () -> new Messenger(cluster.layout(), 1, 1, port, cluster.region(1), capabilities));
            assertThrows(IllegalArgumentException.class,
                () -> new Messenger(cluster.layout(), 2, 0, port, cluster.region(1), capabilities));
        }
    }

    @Test
    void capabilitiesAreFetchedOncePerNodeWhenFirstNeeded() {
        try (MessagingCluster cluster = cluster(3, 1)) {
            FabricPort senderPort = cluster.port(0);
            FabricPort receiverPort = cluster.port(1);
            int[] fetches = new int[3];
            IntFunction<Capability> fetch = Messenger.capabilities(cluster.fabric(0));
            Messenger sender = new Messenger(cluster.layout(), 0, 0, senderPort, cluster.region(0), node -> {
                fetches[node]++;
                return fetch.apply(node);
            });
            Messenger receiver = cluster.messenger(1, 0, receiverPort);
            assertArrayEquals(new int[] {0, 0, 0}, fetches);
            for (int i = 0; i < 100; i++) {
                sender.send(1, 1, payload(200, i), 0, 200);
                receiver.poll((node, thread, type, payload, offset, length) -> {
                }, 100);
                pump(senderPort, receiverPort);
                sender.poll((node, thread, type, payload, offset, length) -> {
                }, 100);
            }
            assertArrayEquals(new int[] {0, 1, 0}, fetches);
        }
    }

    @Test
    void aMessageToANodeThatStoppedFailsThroughItsCompletion() {
        try (MessagingCluster cluster = cluster(2, 1)) {
            FabricPort senderPort = cluster.port(0);
            Messenger sender = cluster.messenger(0, 0, senderPort);
            List<FabricException> outcomes = new ArrayList<>();
            assertTrue(sender.trySend(1, 1, payload(8, 0), 0, 8, outcomes::add));
            senderPort.poll(10);
            cluster.fabric(1).close();
            assertTrue(sender.trySend(1, 1, payload(8, 1), 0, 8, outcomes::add));
            senderPort.poll(10);
            assertEquals(2, outcomes.size());
            assertEquals(null, outcomes.get(0));
            assertInstanceOf(PeerUnreachableException.class, outcomes.get(1));
        }
    }

    @Test
    void logRecordsAreDeliveredOnceToTheSendersPeerWorkerAndStayUntilTruncated() {
        try (MessagingCluster cluster = cluster(2, 2)) {
            FabricPort senderPort = cluster.port(0);
            FabricPort receiverPort = cluster.port(1);
            Messenger sender = cluster.messenger(0, 1, senderPort);
            Messenger receiver = cluster.messenger(1, 1, receiverPort);
            List<Long> positions = new ArrayList<>();
            int sent = 0;
            while (sender.trySendLog(1, 3, payload(100, sent), 0, 100)) {
                sent++;
            }
            pump(senderPort);
            LogHandler handler = (node, thread, type, position, payload, offset, length) -> {
                assertEquals(0, node);
                assertEquals(1, thread);
                assertEquals(3, type);
                assertArrayEquals(bytes(payload(100, positions.size())), bytes(payload.asSlice(offset, length)));
                positions.add(position);
            };
            assertEquals(sent, receiver.pollLog(handler, Integer.MAX_VALUE));
            sender.sendLog(1, 3, payload(100, sent), 0, 100);
            assertEquals(1, sender.backlog(1, RingKind.LOG), "the log ring is full until truncation");
            pump(senderPort, receiverPort);
            assertEquals(0, receiver.pollLog(handler, Integer.MAX_VALUE));
            sender.flushBacklogs();
            assertEquals(1, sender.backlog(1, RingKind.LOG));
            for (long position : List.copyOf(positions)) {
                receiver.truncateLog(0, position);
            }
            pump(senderPort, receiverPort);
            sender.flushBacklogs();
            assertEquals(0, sender.backlog(1, RingKind.LOG));
            pump(senderPort);
            assertEquals(1, receiver.pollLog(handler, Integer.MAX_VALUE));
            assertEquals(sent + 1, positions.size());
            assertEquals(sent + 1, senderPort.counters().snapshot().messageOps());
        }
    }

    /** Payload of message {@code seq} of (node, thread): the three ints, then a filler of seq-dependent length. */
    private static MemorySegment tagged(int node, int thread, int seq) {
        int length = 12 + seq % 300;
        MemorySegment payload = payload(length, seq);
        payload.set(ValueLayout.JAVA_INT_UNALIGNED, 0, node);
        payload.set(ValueLayout.JAVA_INT_UNALIGNED, 4, thread);
        payload.set(ValueLayout.JAVA_INT_UNALIGNED, 8, seq);
        return payload;
    }

    @Test
    @Timeout(120)
    void manyConcurrentSendersToOneNodeDeliverEveryMessageOnceInOrder() throws InterruptedException {
        int nodes = 3;
        int threads = 2;
        int perSender = 20_000;
        try (MessagingCluster cluster = cluster(nodes, threads)) {
            Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
            AtomicInteger running = new AtomicInteger(nodes * threads);
            long[] delivered = new long[nodes * threads];
            List<Thread> workers = new ArrayList<>();
            for (int node = 0; node < nodes; node++) {
                for (int worker = 0; worker < threads; worker++) {
                    int self = node;
                    int index = worker;
                    workers.add(Thread.ofPlatform().name("node" + node + "-worker" + worker).start(() -> {
                        try {
                            FabricPort port = cluster.port(self);
                            try (Messenger messenger = cluster.messenger(self, index, port)) {
                                int[] next = new int[nodes];
                                long[] count = new long[1];
                                MessageHandler check = (sender, thread, type, payload, offset, length) -> {
                                    assertEquals(index, thread, "a ring is polled by the sender thread's peer");
                                    assertEquals(0, self, "only node 0 receives");
                                    MemorySegment expected = tagged(sender, thread, next[sender]);
                                    assertEquals(expected.byteSize(), length, "message " + next[sender] + " of " + sender);
                                    assertEquals(-1, expected.mismatch(payload.asSlice(offset, length)),
                                        "message " + next[sender] + " of node " + sender + " thread " + thread);
                                    next[sender]++;
                                    count[0]++;
                                };
                                int sent = 0;
                                while (failures.isEmpty()) {
                                    boolean progress = false;
                                    while (sent < perSender && messenger.backlog(0, RingKind.MESSAGE) < 8) {
                                        MemorySegment payload = tagged(self, index, sent);
                                        messenger.send(0, 7, payload, 0, (int) payload.byteSize());
                                        sent++;
                                        progress = true;
                                    }
                                    progress |= messenger.poll(check, 64) > 0;
                                    progress |= port.poll(64) > 0;
                                    // A write is only known to have landed once the port performed and completed it.
                                    boolean sendsDone = sent == perSender && messenger.backlog(0, RingKind.MESSAGE) == 0
                                        && port.outstanding() == 0;
                                    boolean receivesDone = self != 0 || count[0] == (long) nodes * perSender;
                                    if (sendsDone && receivesDone) {
                                        break;
                                    }
                                    if (!progress) {
                                        Thread.yield();
                                    }
                                }
                                delivered[self * threads + index] = count[0];
                                for (int sender = 0; self == 0 && sender < nodes; sender++) {
                                    assertEquals(perSender, next[sender], "messages from node " + sender + " thread " + index);
                                }
                                assertEquals(perSender, port.counters().snapshot().messageOps());
                            }
                        } catch (Throwable t) {
                            failures.add(t);
                        } finally {
                            running.decrementAndGet();
                        }
                    }));
                }
            }
            for (Thread worker : workers) {
                worker.join();
            }
            if (!failures.isEmpty()) {
                AssertionError error = new AssertionError("a worker failed");
                failures.forEach(error::addSuppressed);
                throw error;
            }
            assertEquals(0, running.get());
            for (int worker = 0; worker < threads; worker++) {
                assertEquals((long) nodes * perSender, delivered[worker], "messages delivered to node 0 worker " + worker);
            }
        }
    }
}
