package io.farm.core.cluster;

import io.farm.core.node.Worker;
import io.farm.core.testing.ShmTempDirs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static io.farm.core.cluster.TestClusters.await;
import static io.farm.core.cluster.TestClusters.config;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Application messages between the nodes of an embedded cluster: node 1 serves, node 0 asks. */
class NodeMessagingTest {
    /** A request carrying a long; the answer carries it plus one. */
    private static final int REQUEST = 7;
    private static final int RESPONSE = 8;
    /** No node has a handler for this type. */
    private static final int UNREGISTERED = 99;

    @TempDir(factory = ShmTempDirs.class)
    Path temp;

    private EmbeddedCluster cluster;
    private Node client;
    private Node server;
    /** What the server saw of each request: the sender, and whether it ran on the worker paired with the sender's. */
    private final ConcurrentLinkedQueue<Request> requests = new ConcurrentLinkedQueue<>();
    /** The answer awaited by each worker of the client. */
    private final AtomicReferenceArray<CompletableFuture<Answer>> awaited = new AtomicReferenceArray<>(2);

    private record Request(int sender, int workerIndex, Worker ranOn, long value, int length) {
    }

    private record Answer(long value, int sender, Worker arrivedOn) {
    }

    @BeforeEach
    void startCluster() {
        cluster = EmbeddedCluster.start(config("messages", 2, "local", temp.resolve("messages")));
        client = cluster.node(0);
        server = cluster.node(1);
    }

    @AfterEach
    void closeCluster() {
        cluster.close();
    }

    private void serveIncrements() {
        server.registerHandler(REQUEST, (worker, sender, type, payload, offset, length) -> {
            long value = payload.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
            requests.add(new Request(sender, worker.index(), Worker.current(), value, length));
            MemorySegment answer = MemorySegment.ofArray(new long[] {value + 1});
            worker.messenger().send(sender, RESPONSE, answer, 0, Long.BYTES);
        });
    }

    private void awaitAnswers() {
        client.registerHandler(RESPONSE, (worker, sender, type, payload, offset, length) ->
            awaited.get(worker.index()).complete(new Answer(payload.get(ValueLayout.JAVA_LONG_UNALIGNED, offset), sender,
                Worker.current())));
    }

    /**
     * From client worker {@code index}: sends the server a message of each of {@code typesBefore},
     * then a request for {@code value}, and returns the answer.
     */
    private CompletableFuture<Answer> ask(int index, long value, int... typesBefore) {
        return client.submit(index, worker -> {
            CompletableFuture<Answer> answer = new CompletableFuture<>();
            awaited.set(worker.index(), answer);
            MemorySegment payload = MemorySegment.ofArray(new long[] {value});
            for (int type : typesBefore) {
                worker.messenger().send(server.id(), type, payload, 0, Long.BYTES);
            }
            worker.messenger().send(server.id(), REQUEST, payload, 0, Long.BYTES);
            return answer;
        });
    }

    @Test
    void requestAndResponseTravelBetweenNodesThroughRegisteredHandlers() throws Exception {
        serveIncrements();
        awaitAnswers();

        for (int w = 0; w < 2; w++) {
            Answer answer = await(ask(w, 1000 + w));

            assertEquals(1001 + w, answer.value());
            assertEquals(server.id(), answer.sender());
            assertSame(client.workers().worker(w), answer.arrivedOn(), "the answer arrives on the asking worker");
        }
        List<Request> seen = List.copyOf(requests);
        assertEquals(2, seen.size());
        for (int w = 0; w < 2; w++) {
            Request request = seen.get(w);
            assertEquals(client.id(), request.sender());
            assertEquals(1000 + w, request.value());
            assertEquals(Long.BYTES, request.length());
            assertEquals(w, request.workerIndex(), "worker w of a node serves the requests of worker w of every node");
            assertSame(server.workers().worker(w), request.ranOn(), "the handler runs on the receiving worker");
        }
        assertEquals(0, server.workers().errorCount() + client.workers().errorCount());
    }

    @Test
    void registerHandlerRefusesSystemTypesAndLeavesPingsWorking() throws Exception {
        for (int type : new int[] {Node.SYSTEM_TYPES, Node.SYSTEM_TYPES + 1, 0xFFFF, -1}) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> server.registerHandler(type, (worker, sender, t, payload, offset, length) -> {
                }));
            assertTrue(refused.getMessage().contains("message type " + type)
                && refused.getMessage().contains("0.." + (Node.SYSTEM_TYPES - 1)), refused.getMessage());
        }

        long roundTrip = await(client.submit(0, worker -> worker.ping(server.id())));

        assertTrue(roundTrip > 0, "ping round trip of " + roundTrip + " ns");
    }

    @Test
    void aSecondHandlerForOneTypeIsRefusedAndTheFirstStays() throws Exception {
        serveIncrements();
        awaitAnswers();

        IllegalStateException refused = assertThrows(IllegalStateException.class,
            () -> server.registerHandler(REQUEST, (worker, sender, type, payload, offset, length) -> {
            }));

        assertTrue(refused.getMessage().contains("message type " + REQUEST + " has a handler on node 1 already"),
            refused.getMessage());
        assertEquals(42, await(ask(0, 41)).value());
    }

    @Test
    void aMessageOfAnUnregisteredTypeIsReportedByTheWorkerWhichGoesOn() throws Exception {
        serveIncrements();
        awaitAnswers();
        Worker receiver = server.workers().worker(1);
        long errorsBefore = receiver.errorCount();
        PrintStream stderr = System.err;
        ByteArrayOutputStream reported = new ByteArrayOutputStream();
        Answer answer;
        try {
            System.setErr(new PrintStream(reported, true, StandardCharsets.UTF_8));
            // The request follows the unregistered message on the same ring: its answer shows the
            // ring moved past the dropped message and the worker kept serving.
            answer = await(ask(1, 9, UNREGISTERED));
        } finally {
            System.setErr(stderr);
        }

        assertEquals(10, answer.value());
        assertEquals(errorsBefore + 1, receiver.errorCount(), "the dropped message is reported once");
        String report = reported.toString(StandardCharsets.UTF_8);
        assertTrue(report.contains("no handler for message type " + UNREGISTERED + " from node 0"), report);
        assertEquals(12, await(ask(1, 11)).value(), "later messages are still served");
        assertEquals(errorsBefore + 1, receiver.errorCount());
    }
}
