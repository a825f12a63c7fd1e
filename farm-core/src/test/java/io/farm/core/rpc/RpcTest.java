package io.farm.core.rpc;

import io.farm.core.cluster.EmbeddedCluster;
import io.farm.core.cluster.Node;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.node.Worker;
import io.farm.core.testing.ShmTempDirs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import static io.farm.core.testing.Liveness.await;
import static io.farm.core.testing.Liveness.awaitCondition;
import static io.farm.core.testing.Liveness.capturingStandardError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RPCs between the nodes of an embedded cluster: node 0 calls, node 1 serves. */
class RpcTest {
    private static final int INCREMENT = 10;
    private static final int LATER = 11;
    private static final int THROWS = 12;
    private static final int REFUSES = 13;
    private static final int HOLDS = 14;
    private static final int UNREGISTERED = 99;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    /** Methods node 1 of the wire-level test answers badly, by hand. */
    private static final int BAD_STATUS = 1;
    private static final int BAD_CONFIGURATION = 2;
    private static final int SHORT_ANSWER = 3;
    private static final int HOLD_THEN_ANSWER = 4;

    @TempDir(factory = ShmTempDirs.class)
    Path temp;

    /** Where a service ran: the worker, and the index of the worker it serves. */
    private record Served(Worker ranOn, int index, int sender) {
    }

    /** A request node 1 of the wire-level test holds, to answer later. */
    private record Held(long requestId) {
    }

    private final ConcurrentLinkedQueue<Served> served = new ConcurrentLinkedQueue<>();
    private final AtomicReference<Held> held = new AtomicReference<>();
    private final AtomicReference<Runnable> heldAnswer = new AtomicReference<>();
    private final AtomicReference<Throwable> offWorkerAnswer = new AtomicReference<>();

    /** Node 1's methods: increment a long (now, or in a later step), throw, refuse, or hold the answer for the test. */
    private void serve(Rpc rpc) {
        rpc.register(INCREMENT, "increment", (worker, sender, arguments, offset, length, reply) -> {
            served.add(new Served(Worker.current(), worker.index(), sender));
            answerIncrement(reply, arguments.get(ValueLayout.JAVA_LONG_UNALIGNED, offset));
        });
        rpc.register(LATER, "increment-later", (worker, sender, arguments, offset, length, reply) -> {
            long value = arguments.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
            Thread other = Thread.ofPlatform().start(() -> {
                try {
                    reply.ok();
                } catch (Throwable t) {
                    offWorkerAnswer.set(t);
                }
            });
            joinUninterruptibly(other);
            worker.worker().execute(() -> answerIncrement(reply, value));
        });
        rpc.register(THROWS, "throws", (worker, sender, arguments, offset, length, reply) -> {
            throw new IllegalArgumentException("argument " + length + " is not accepted by this test");
        });
        rpc.register(REFUSES, "refuses", (worker, sender, arguments, offset, length, reply) -> reply.fail("no, thanks"));
        rpc.register(HOLDS, "holds", (worker, sender, arguments, offset, length, reply) ->
            heldAnswer.set(() -> answerIncrement(reply, 0)));
    }

    private static void answerIncrement(RpcReply reply, long value) {
        MemorySegment result = Arena.ofAuto().allocate(Long.BYTES);
        result.set(ValueLayout.JAVA_LONG, 0, value + 1);
        reply.ok(result, 0, Long.BYTES);
        assertThrows(IllegalStateException.class, () -> reply.ok(result, 0, Long.BYTES), "a second answer is refused");
    }

    private static long decodeLong(MemorySegment result, long offset, int length) {
        if (length != Long.BYTES) {
            throw new IllegalArgumentException(length + " bytes, expected 8");
        }
        return result.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
    }

    /** Calls {@code method} of node {@code target} with the long {@code value} from worker {@code index} of {@code caller}. */
    private static <T> CompletableFuture<T> call(RpcCluster.Member caller, int index, int target, int method, long value,
                                                 Duration timeout, RpcDecoder<T> decoder) {
        return caller.node().submit(index, worker -> {
            MemorySegment arguments = Arena.ofAuto().allocate(Long.BYTES);
            arguments.set(ValueLayout.JAVA_LONG, 0, value);
            return caller.rpc().call(worker, target, method, arguments, 0, Long.BYTES, timeout, decoder);
        });
    }

    private static RpcException failure(CompletableFuture<?> call) {
        ExecutionException failed = assertThrows(ExecutionException.class, () -> await(call));
        return assertInstanceOf(RpcException.class, failed.getCause());
    }

    @Test
    void aCallIsServedByThePairedWorkerAndCompletesOnTheCallingWorker() throws Exception {
        try (RpcCluster cluster = RpcCluster.start(temp.resolve("calls"), 3)) {
            serve(cluster.member(1).rpc());
            for (int w = 0; w < 2; w++) {
                long expected = 42 + w;
                MemorySegment arguments = Arena.ofAuto().allocate(Long.BYTES);
                arguments.set(ValueLayout.JAVA_LONG, 0, 41 + w);
                // The continuation is attached on the calling worker, before the answer can arrive.
                CompletableFuture<Worker> completedOn = cluster.node(0).submit(w, worker -> cluster.member(0).rpc()
                    .call(worker, 1, INCREMENT, arguments, 0, Long.BYTES, TIMEOUT, RpcTest::decodeLong)
                    .thenApply(value -> {
                        assertEquals(expected, value);
                        return Worker.current();
                    }));
                assertSame(cluster.node(0).workers().worker(w), await(completedOn));
                Served request = served.poll();
                assertSame(cluster.node(1).workers().worker(w), request.ranOn(), "worker w serves the calls of worker w");
                assertEquals(w, request.index());
                assertEquals(0, request.sender());
            }
            assertEquals(43, await(call(cluster.member(0), 1, 1, LATER, 42, TIMEOUT, RpcTest::decodeLong)),
                "an answer given in a later step of the receiving worker");
            IllegalStateException offWorker = assertInstanceOf(IllegalStateException.class, offWorkerAnswer.get());
            assertTrue(offWorker.getMessage().contains("must be given on the thread of worker farm-node1-worker1"),
                offWorker.getMessage());
            assertEquals(0, cluster.workerErrors());
        }
    }

    @Test
    void refusalsAndFailuresOfTheCalleeReachTheCallerWithTheirReason() throws Exception {
        try (RpcCluster cluster = RpcCluster.start(temp.resolve("failures"), 3)) {
            serve(cluster.member(1).rpc());
            RpcCluster.Member caller = cluster.member(0);

            RpcException thrown = failure(call(caller, 0, 1, THROWS, 0, TIMEOUT, RpcTest::decodeLong));
            assertEquals(RpcException.Reason.FAILED, thrown.reason());
            assertTrue(thrown.getMessage().matches("RPC method 12 to node 1 \\(request \\d+ of node 0\\) failed: argument 8 is"
                + " not accepted by this test"), thrown.getMessage());

            RpcException refused = failure(call(caller, 1, 1, REFUSES, 0, TIMEOUT, RpcTest::decodeLong));
            assertEquals(RpcException.Reason.FAILED, refused.reason());
            assertTrue(refused.getMessage().endsWith("failed: no, thanks"), refused.getMessage());

            RpcException unknown = failure(call(caller, 0, 1, UNREGISTERED, 0, TIMEOUT, RpcTest::decodeLong));
            assertEquals(RpcException.Reason.UNKNOWN_METHOD, unknown.reason());
            assertTrue(unknown.getMessage().contains("node 1 has no RPC method 99 (it serves [10 increment, 11 increment-later,"
                + " 12 throws, 13 refuses, 14 holds])"), unknown.getMessage());

            RpcException malformed = failure(call(caller, 0, 1, INCREMENT, 0, TIMEOUT, (result, offset, length) -> {
                throw new IllegalArgumentException("the test wants 3 bytes, not " + length);
            }));
            assertEquals(RpcException.Reason.MALFORMED_RESPONSE, malformed.reason());
            assertTrue(malformed.getMessage().endsWith("was answered with a malformed result: the test wants 3 bytes, not 8"),
                malformed.getMessage());

            assertEquals(1, await(call(caller, 0, 1, INCREMENT, 0, TIMEOUT, RpcTest::decodeLong)), "the callee still serves");
            assertEquals(0, cluster.workerErrors());
        }
    }

    @Test
    void aCallWithoutAnAnswerInTimeFailsAndItsLateAnswerIsDropped() throws Exception {
        try (RpcCluster cluster = RpcCluster.start(temp.resolve("timeout"), 3)) {
            serve(cluster.member(1).rpc());
            RpcCluster.Member caller = cluster.member(0);

            RpcException timedOut = failure(call(caller, 1, 1, HOLDS, 0, Duration.ofMillis(50), RpcTest::decodeLong));

            assertEquals(RpcException.Reason.TIMEOUT, timedOut.reason());
            assertTrue(timedOut.getMessage().contains("RPC method 14 to node 1") && timedOut.getMessage().contains(
                "got no answer within PT0.05S (the callee may still act on it)"), timedOut.getMessage());
            awaitCondition("node 1 holds the answer", () -> heldAnswer.get() != null);
            cluster.node(1).workers().worker(1).execute(heldAnswer.get());
            awaitCondition("the late answer is dropped", () -> caller.rpc().unmatchedResponses() == 1);
            assertEquals(2, await(call(caller, 1, 1, INCREMENT, 1, TIMEOUT, RpcTest::decodeLong)), "later calls are answered");
            assertEquals(0, cluster.workerErrors());
        }
    }

    @Test
    void aCallToAnUnreachableNodeFails() throws Exception {
        try (RpcCluster cluster = RpcCluster.start(temp.resolve("unreachable"), 3)) {
            cluster.node(2).close();

            RpcException unreachable = failure(call(cluster.member(0), 0, 2, INCREMENT, 0, TIMEOUT, RpcTest::decodeLong));

            assertEquals(RpcException.Reason.UNREACHABLE, unreachable.reason());
            assertTrue(unreachable.getMessage().contains("RPC method 10 to node 2") && unreachable.getMessage().contains(
                "could not be delivered"), unreachable.getMessage());
        }
    }

    @Test
    void badCallsAndRegistrationsAreRefusedAtOnce() throws Exception {
        try (RpcCluster cluster = RpcCluster.start(temp.resolve("bad"), 3)) {
            Rpc rpc = cluster.member(0).rpc();
            NodeWorker worker0 = cluster.node(0).worker(0);
            MemorySegment arguments = Arena.ofAuto().allocate(rpc.maxBodyLength() + 1);

            IllegalStateException offWorker = assertThrows(IllegalStateException.class,
                () -> rpc.call(worker0, 1, INCREMENT, arguments, 0, 8, TIMEOUT, RpcTest::decodeLong));
            assertTrue(offWorker.getMessage().contains("must run on the thread of worker farm-node0-worker0"), offWorker.getMessage());
            assertRefusedOnWorker(cluster.node(1), worker -> rpc.call(worker, 0, INCREMENT, arguments, 0, 8, TIMEOUT, RpcTest::decodeLong),
                IllegalStateException.class, "RPC call on node 0 with a worker of node 1");
            assertRefusedOnWorker(cluster.node(0), worker -> rpc.call(worker, 3, INCREMENT, arguments, 0, 8, TIMEOUT, RpcTest::decodeLong),
                IllegalArgumentException.class, "node 3 is not a member of cluster memory: members are 0..2");
            assertRefusedOnWorker(cluster.node(0), worker -> rpc.call(worker, 1, 256, arguments, 0, 8, TIMEOUT, RpcTest::decodeLong),
                IllegalArgumentException.class, "RPC method 256 is out of range: 0..255");
            assertRefusedOnWorker(cluster.node(0),
                worker -> rpc.call(worker, 1, INCREMENT, arguments, 0, rpc.maxBodyLength() + 1, TIMEOUT, RpcTest::decodeLong),
                IllegalArgumentException.class, "has " + (rpc.maxBodyLength() + 1) + " bytes: at most " + rpc.maxBodyLength());
            assertRefusedOnWorker(cluster.node(0), worker -> rpc.call(worker, 1, INCREMENT, arguments, 0, 8, Duration.ZERO,
                RpcTest::decodeLong), IllegalArgumentException.class, "RPC timeout PT0S is not accepted");

            rpc.register(INCREMENT, "increment", (w, s, a, o, l, r) -> r.ok());
            IllegalStateException twice = assertThrows(IllegalStateException.class,
                () -> rpc.register(INCREMENT, "again", (w, s, a, o, l, r) -> r.ok()));
            assertTrue(twice.getMessage().contains("RPC method 10 is registered on node 0 already, as increment"), twice.getMessage());
            assertThrows(IllegalArgumentException.class, () -> rpc.register(-1, "negative", (w, s, a, o, l, r) -> r.ok()));
            assertThrows(IllegalArgumentException.class, () -> rpc.register(20, " ", (w, s, a, o, l, r) -> r.ok()));
            IllegalStateException attachedTwice = assertThrows(IllegalStateException.class, () -> Rpc.attach(cluster.node(0)));
            assertTrue(attachedTwice.getMessage().contains("has a handler on node 0 already"), attachedTwice.getMessage());
        }
    }

    private static void assertRefusedOnWorker(Node node, Function<NodeWorker, CompletionStage<Long>> call,
                                              Class<? extends RuntimeException> expected, String messagePart) {
        ExecutionException failed = assertThrows(ExecutionException.class, () -> await(node.submit(0, call)));
        RuntimeException refused = assertInstanceOf(expected, failed.getCause());
        assertTrue(refused.getMessage().contains(messagePart), () -> "\"" + refused.getMessage() + "\" lacks \"" + messagePart + "\"");
    }

    /**
     * Wire-level checks: node 0 calls through {@link Rpc}; node 1 has no RPC layer and answers
     * requests by hand, well or badly; node 2 sends raw requests and captures raw answers.
     */
    @Test
    void malformedRequestsAndResponsesAreReportedOrRefusedClearly() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.start(RpcCluster.config(temp.resolve("wire"), 3))) {
            Rpc caller = Rpc.attach(cluster.node(0));
            caller.register(INCREMENT, "increment", (worker, sender, arguments, offset, length, reply) -> answerIncrement(reply, 0));
            cluster.node(1).registerSystemHandler(RpcMessageDescriptor.RPC_REQUEST, this::answerBadly);
            ConcurrentLinkedQueue<String> answers = new ConcurrentLinkedQueue<>();
            cluster.node(2).registerSystemHandler(RpcMessageDescriptor.RPC_RESPONSE, (worker, sender, type, payload, offset, length) ->
                answers.add(RpcMessageDescriptor.statusName(RpcMessageDescriptor.status(payload, offset)) + " "
                    + RpcMessageDescriptor.reason(payload, offset + RpcMessageDescriptor.RPC_HEADER_LENGTH,
                    length - RpcMessageDescriptor.RPC_HEADER_LENGTH)));

            // Node 1 answers with a status that does not exist, or from another configuration.
            RpcException unknownStatus = failure(cluster.node(0).submit(0, worker -> caller.call(worker, 1, BAD_STATUS,
                MemorySegment.NULL, 0, 0, TIMEOUT, RpcTest::decodeLong)));
            assertEquals(RpcException.Reason.MALFORMED_RESPONSE, unknownStatus.reason());
            assertTrue(unknownStatus.getMessage().endsWith("was answered with unknown status 9, which is no RPC status"),
                unknownStatus.getMessage());
            RpcException otherConfiguration = failure(cluster.node(0).submit(0, worker -> caller.call(worker, 1, BAD_CONFIGURATION,
                MemorySegment.NULL, 0, 0, TIMEOUT, RpcTest::decodeLong)));
            assertEquals(RpcException.Reason.WRONG_CONFIGURATION, otherConfiguration.reason());
            assertTrue(otherConfiguration.getMessage().endsWith("was answered from configuration 3, not 0"), otherConfiguration.getMessage());

            // Node 1 answers too short to name the request: node 0 reports it, and the call times out.
            long errorsBefore = cluster.node(0).workers().errorCount();
            String[] report = new String[1];
            RpcException[] tooShort = new RpcException[1];
            report[0] = capturingStandardError(() -> tooShort[0] = failure(cluster.node(0).submit(1, worker ->
                caller.call(worker, 1, SHORT_ANSWER, MemorySegment.NULL, 0, 0, Duration.ofMillis(200), RpcTest::decodeLong))));
            assertEquals(RpcException.Reason.TIMEOUT, tooShort[0].reason());
            assertEquals(errorsBefore + 1, cluster.node(0).workers().errorCount());
            assertTrue(report[0].contains("malformed RPC response from node 1: 12 bytes, shorter than its 24-byte header"), report[0]);

            // Node 2 answers a request that went to node 1: reported, and the call still gets node 1's answer.
            String misdirected = capturingStandardError(() -> {
                CompletableFuture<Long> pending = cluster.node(0).submit(0, worker -> caller.call(worker, 1, HOLD_THEN_ANSWER,
                    MemorySegment.NULL, 0, 0, TIMEOUT, RpcTest::decodeLong));
                awaitCondition("node 1 holds the request", () -> held.get() != null);
                long requestId = held.get().requestId();
                await(cluster.node(2).submit(0, worker -> {
                    respond(worker, 0, requestId, RpcMessageDescriptor.OK, RpcMessageDescriptor.STATIC_CONFIGURATION, 24);
                    return worker.ping(0);
                }));
                Held request = held.get();
                cluster.node(1).workers().worker(0).execute(() -> respond(cluster.node(1).worker(0), 0, request.requestId(),
                    RpcMessageDescriptor.OK, RpcMessageDescriptor.STATIC_CONFIGURATION, 32));
                assertEquals(7, await(pending), "node 1's answer");
            });
            assertTrue(misdirected.contains("malformed RPC response from node 2: it answers request " + held.get().requestId()
                + " of worker 0, which went to node 1; dropped"), misdirected);

            // Node 2 sends requests by hand: from another configuration, for a missing method, too short.
            String unanswerable = capturingStandardError(() -> await(cluster.node(2).submit(1, worker -> {
                MemorySegment request = Arena.ofAuto().allocate(RpcMessageDescriptor.RPC_HEADER_LENGTH);
                RpcMessageDescriptor.writeRequestHeader(request, 0, 5, 1, INCREMENT);
                worker.messenger().send(0, RpcMessageDescriptor.RPC_REQUEST, request, 0, RpcMessageDescriptor.RPC_HEADER_LENGTH);
                RpcMessageDescriptor.writeRequestHeader(request, 0, 0, 2, UNREGISTERED);
                worker.messenger().send(0, RpcMessageDescriptor.RPC_REQUEST, request, 0, RpcMessageDescriptor.RPC_HEADER_LENGTH);
                worker.messenger().send(0, RpcMessageDescriptor.RPC_REQUEST, request, 0, 20);
                RpcMessageDescriptor.writeRequestHeader(request, 0, 0, 3, INCREMENT);
                worker.messenger().send(0, RpcMessageDescriptor.RPC_REQUEST, request, 0, RpcMessageDescriptor.RPC_HEADER_LENGTH);
                return worker.ping(0);
            })));
            awaitCondition("node 2 gets three answers", () -> answers.size() == 3);
            assertEquals("WRONG_CONFIGURATION node 0 is in configuration 0, the request was made in configuration 5", answers.poll());
            assertEquals("UNKNOWN_METHOD node 0 has no RPC method 99 (it serves [10 increment])", answers.poll());
            assertTrue(answers.poll().startsWith("OK "), "a good request after the bad ones is served");
            assertTrue(unanswerable.contains("malformed RPC request from node 2: 20 bytes, shorter than its 24-byte header"),
                unanswerable);
            assertNull(answers.poll());
        }
    }

    private void answerBadly(NodeWorker worker, int sender, int type, MemorySegment payload, long offset, int length) {
        long requestId = RpcMessageDescriptor.requestId(payload, offset);
        switch (RpcMessageDescriptor.method(payload, offset)) {
            case BAD_STATUS -> respond(worker, sender, requestId, 9, RpcMessageDescriptor.STATIC_CONFIGURATION, 24);
            case BAD_CONFIGURATION -> respond(worker, sender, requestId, RpcMessageDescriptor.OK, 3, 24);
            case SHORT_ANSWER -> respond(worker, sender, requestId, RpcMessageDescriptor.OK, 0, 12);
            case HOLD_THEN_ANSWER -> held.set(new Held(requestId));
            default -> throw new AssertionError("unexpected method");
        }
    }

    /** Sends a response of {@code length} bytes by hand; a 32-byte one carries the long 7. */
    private static void respond(NodeWorker worker, int caller, long requestId, int status, long configuration, int length) {
        MemorySegment response = Arena.ofAuto().allocate(32);
        RpcMessageDescriptor.writeResponseHeader(response, 0, configuration, requestId, status);
        response.set(ValueLayout.JAVA_LONG_UNALIGNED, RpcMessageDescriptor.RPC_HEADER_LENGTH, 7);
        worker.messenger().send(caller, RpcMessageDescriptor.RPC_RESPONSE, response, 0, length);
    }

    private static void joinUninterruptibly(Thread thread) {
        while (true) {
            try {
                thread.join();
                return;
            } catch (InterruptedException e) {
                // keep waiting: the thread ends at once
            }
        }
    }
}
