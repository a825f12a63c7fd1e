package io.farm.core.ship;

import io.farm.core.addr.GlobalAddress;
import io.farm.core.addr.RegionId;
import io.farm.core.cluster.EmbeddedCluster;
import io.farm.core.cluster.Node;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.config.ClusterConfig;
import io.farm.core.node.Worker;
import io.farm.core.placement.PlacementRing;
import io.farm.core.rpc.Rpc;
import io.farm.core.rpc.RpcException;
import io.farm.core.testing.ShmTempDirs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;

import static io.farm.core.testing.Liveness.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Function shipping on a three-node embedded cluster (local fabric, two workers per node). */
class FunctionShippingTest {
    /** Answers where it ran and the message; records the call. */
    private static final int DESCRIBE = 1;
    /** Pings the next node from the handling worker and answers after the pong. */
    private static final int LATER = 2;
    /** Answers from a thread that is no worker. */
    private static final int OFF_THREAD = 3;
    private static final int THROWS = 4;
    /** Fails its stage in a later step of the handling worker. */
    private static final int FAILS = 5;
    private static final int OVERSIZED_ANSWER = 6;
    /** Checks that byte i of the message is (byte) i and answers how many there were. */
    private static final int CHECKS_PATTERN = 7;
    private static final int UNREGISTERED = 77;
    private static final int NODES = 3;
    private static final int THREADS = 2;

    @TempDir(factory = ShmTempDirs.class)
    static Path dataDir;

    private static EmbeddedCluster cluster;
    private static final List<Rpc> rpcs = new ArrayList<>();
    private static final List<FunctionShipping> shippings = new ArrayList<>();
    private static final ConcurrentLinkedQueue<Handled> handled = new ConcurrentLinkedQueue<>();
    private static final SplittableRandom random = new SplittableRandom(20261121);

    /** A call of the DESCRIBE handler: the worker it ran on, the sender and the address. */
    private record Handled(Worker ranOn, int sender, long address) {
    }

    /** What a send produced, seen from the sending worker. */
    private record Outcome(String answer, Throwable failure, Worker completedOn, boolean doneWithinSend) {
    }

    @BeforeAll
    static void start() {
        cluster = EmbeddedCluster.start(ClusterConfig.builder()
            .name("shipping")
            .memberCount(NODES)
            .fabric("local")
            .threads(THREADS)
            .regionSize(1 << 20)
            .dataDir(dataDir)
            .build());
        for (Node node : cluster.nodes()) {
            Rpc rpc = Rpc.attach(node);
            rpcs.add(rpc);
            shippings.add(FunctionShipping.attach(node, rpc));
        }
        for (FunctionShipping shipping : shippings) {
            register(shipping);
        }
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @BeforeEach
    void forgetEarlierCalls() {
        handled.clear();
    }

    private static void register(FunctionShipping shipping) {
        shipping.msgRegisterHandler(DESCRIBE, (worker, sender, address, message, offset, length) -> {
            handled.add(new Handled(Worker.current(), sender, address));
            return CompletableFuture.completedFuture(bytes("node " + worker.node().id() + " on " + Worker.current().name()
                + " from node " + sender + " at " + GlobalAddress.toString(address) + ": " + string(message, offset, length)));
        });
        shipping.msgRegisterHandler(LATER, (worker, sender, address, message, offset, length) -> {
            String text = string(message, offset, length);
            return worker.ping((worker.node().id() + 1) % NODES).thenApply(roundTrip ->
                bytes("later on " + Worker.current().name() + " after a ping: " + text));
        });
        shipping.msgRegisterHandler(OFF_THREAD, (worker, sender, address, message, offset, length) -> {
            String text = string(message, offset, length);
            CompletableFuture<byte[]> answer = new CompletableFuture<>();
            // Started in a later step of the handling worker: the answer comes after the handler returned, from another thread.
            worker.worker().execute(() -> Thread.ofPlatform().name("not-a-worker").start(() ->
                answer.complete(bytes("from " + Thread.currentThread().getName() + ": " + text))));
            return answer;
        });
        shipping.msgRegisterHandler(THROWS, (worker, sender, address, message, offset, length) -> {
            throw new IllegalStateException("the test's handler refuses " + length + " bytes");
        });
        shipping.msgRegisterHandler(FAILS, (worker, sender, address, message, offset, length) -> {
            CompletableFuture<byte[]> answer = new CompletableFuture<>();
            worker.worker().execute(() -> answer.completeExceptionally(new IllegalArgumentException("the test's handler failed later")));
            return answer;
        });
        shipping.msgRegisterHandler(OVERSIZED_ANSWER, (worker, sender, address, message, offset, length) ->
            CompletableFuture.completedFuture(new byte[shipping.maxAnswerLength() + 1]));
        shipping.msgRegisterHandler(CHECKS_PATTERN, (worker, sender, address, message, offset, length) -> {
            for (int i = 0; i < length; i++) {
                if (message.get(ValueLayout.JAVA_BYTE, offset + i) != (byte) i) {
                    throw new IllegalArgumentException("byte " + i + " of the message is not " + (byte) i);
                }
            }
            return CompletableFuture.completedFuture(bytes(length + " bytes intact"));
        });
    }

    @Test
    void aMessageIsHandledOnThePrimaryOfItsAddressAndAnsweredOnTheSendingWorker() throws Exception {
        for (int sender = 0; sender < NODES; sender++) {
            for (int primary = 0; primary < NODES; primary++) {
                for (int w = 0; w < THREADS; w++) {
                    long address = addressWithPrimary(primary);
                    String message = "hello " + sender + "->" + primary + " from worker " + w;
                    boolean asArray = (sender + primary + w) % 2 == 0;

                    Outcome outcome = await(send(sender, w, address, DESCRIBE, message, asArray));

                    Worker handling = cluster.node(primary).workers().worker(w);
                    assertNull(outcome.failure());
                    assertEquals("node " + primary + " on " + handling.name() + " from node " + sender + " at "
                        + GlobalAddress.toString(address) + ": " + message, outcome.answer());
                    assertSame(cluster.node(sender).workers().worker(w), outcome.completedOn(), "completes on the sending worker");
                    assertFalse(outcome.doneWithinSend(), "the stage completes in a later step, not within msgSend");
                    Handled call = handled.poll();
                    assertSame(handling, call.ranOn(), "worker w of the primary handles the messages of worker w");
                    assertEquals(sender, call.sender());
                    assertEquals(address, call.address());
                    assertNull(handled.poll());
                }
            }
        }
        assertNoWorkerErrors();
    }

    @Test
    void aMessageForAnAddressOfTheSendingNodeIsHandledWithinMsgSendWithoutMessaging() throws Exception {
        long address = addressWithPrimary(1);
        CompletableFuture<Outcome> outcome = cluster.node(1).submit(1, worker -> {
            CompletionStage<byte[]> answer = shipping(1).msgSend(worker, address, DESCRIBE, bytes("local"));
            // Through the rings, node 1's worker 1 could handle the message only after this task returns.
            Handled call = handled.poll();
            assertSame(Worker.current(), call.ranOn(), "the sending worker ran the handler before msgSend returned");
            assertEquals(1, call.sender());
            return outcome(answer);
        });
        Outcome local = await(outcome);
        assertEquals("node 1 on farm-node1-worker1 from node 1 at " + GlobalAddress.toString(address) + ": local", local.answer());
        assertSame(cluster.node(1).workers().worker(1), local.completedOn());
        assertFalse(local.doneWithinSend(), "a local answer, too, completes the stage in a later step");
        assertNoWorkerErrors();
    }

    @Test
    void answersGivenLaterOrOnAnotherThreadReturnToTheSender() throws Exception {
        for (int primary : new int[] {0, 1}) {
            long address = addressWithPrimary(primary);

            Outcome later = await(send(0, 1, address, LATER, "ping first", primary == 0));
            assertEquals("later on farm-node" + primary + "-worker1 after a ping: ping first", later.answer(),
                "the handler's continuation ran on the handling worker");
            assertSame(cluster.node(0).workers().worker(1), later.completedOn());

            Outcome offThread = await(send(0, 0, address, OFF_THREAD, "elsewhere", primary != 0));
            assertEquals("from not-a-worker: elsewhere", offThread.answer());
            assertSame(cluster.node(0).workers().worker(0), offThread.completedOn());
        }
        assertNoWorkerErrors();
    }

    @Test
    void anUnknownHandlerIdFailsTheSendersStageWithAnRpcExceptionNamingIt() throws Exception {
        RpcException remote = failure(await(send(0, 0, addressWithPrimary(2), UNREGISTERED, "anyone?", false)));
        assertEquals(RpcException.Reason.FAILED, remote.reason());
        assertTrue(remote.getMessage().matches("RPC function-shipping to node 2 \\(request \\d+ of node 0\\) failed: node 2 has no"
            + " shipped-message handler 77 \\(it has handlers \\[1, 2, 3, 4, 5, 6, 7]\\)"), remote.getMessage());

        RpcException local = failure(await(send(0, 1, addressWithPrimary(0), UNREGISTERED, "anyone?", true)));
        assertEquals(RpcException.Reason.FAILED, local.reason());
        assertTrue(local.getMessage().startsWith("function shipping to node 0 (local delivery, no RPC) failed: node 0 has no"
            + " shipped-message handler 77 (it has handlers [1, 2, 3, 4, 5, 6, 7"), local.getMessage());
        assertNoWorkerErrors();
    }

    @Test
    void aHandlerThatThrowsFailsOrAnswersTooMuchFailsTheSendersStageWithItsReason() throws Exception {
        int maxAnswer = shipping(0).maxAnswerLength();
        for (int primary : new int[] {1, 0}) {
            long address = addressWithPrimary(primary);
            String handler = "shipped-message handler %d on node " + primary;

            Outcome thrown = await(send(0, 0, address, THROWS, "12345", true));
            RpcException threw = failure(thrown);
            assertEquals(RpcException.Reason.FAILED, threw.reason());
            assertTrue(threw.getMessage().endsWith(" failed: " + handler.formatted(THROWS)
                + " failed: the test's handler refuses 5 bytes"), threw.getMessage());
            assertSame(cluster.node(0).workers().worker(0), thrown.completedOn(), "a failure, too, completes on the sending worker");

            RpcException failedLater = failure(await(send(0, 1, address, FAILS, "", false)));
            assertTrue(failedLater.getMessage().endsWith(" failed: " + handler.formatted(FAILS)
                + " failed: the test's handler failed later"), failedLater.getMessage());

            RpcException tooMuch = failure(await(send(0, 1, address, OVERSIZED_ANSWER, "", false)));
            assertTrue(tooMuch.getMessage().endsWith(" failed: " + handler.formatted(OVERSIZED_ANSWER) + " answered "
                + (maxAnswer + 1) + " bytes: at most " + maxAnswer + " fit one message"), tooMuch.getMessage());

            if (primary == 0) {
                assertInstanceOf(IllegalStateException.class, threw.getCause(), "a local failure keeps the handler's exception");
                assertInstanceOf(IllegalArgumentException.class, failedLater.getCause());
            }
        }
        assertTrue(await(send(0, 0, addressWithPrimary(1), DESCRIBE, "still there", false)).answer().startsWith("node 1 on "),
            "the primary serves on");
        assertNoWorkerErrors();
    }

    @Test
    void aMessageOfTheLargestLengthIsDeliveredAndALongerOneIsRefused() throws Exception {
        FunctionShipping sending = shipping(0);
        int max = sending.maxMessageLength();
        assertEquals(rpcs.get(0).maxBodyLength() - ShippedMessageDescriptor.HEADER_LENGTH, max);
        MemorySegment pattern = Arena.ofAuto().allocate(max + 1);
        byte[] patternArray = new byte[max + 1];
        for (int i = 0; i <= max; i++) {
            pattern.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            patternArray[i] = (byte) i;
        }
        byte[] largestArray = Arrays.copyOf(patternArray, max);
        for (int primary : new int[] {1, 0}) {
            long address = addressWithPrimary(primary);
            assertEquals(max + " bytes intact", await(cluster.node(0).submit(0, worker ->
                outcome(sending.msgSend(worker, address, CHECKS_PATTERN, pattern, 0, max)))).answer());
            assertEquals(max + " bytes intact", await(cluster.node(0).submit(1, worker ->
                outcome(sending.msgSend(worker, address, CHECKS_PATTERN, largestArray)))).answer());

            String limit = "shipped message of " + (max + 1) + " bytes is not accepted: at most " + max + " bytes fit one message";
            assertRefused(0, worker -> sending.msgSend(worker, address, DESCRIBE, pattern, 0, max + 1),
                IllegalArgumentException.class, limit);
            assertRefused(0, worker -> sending.msgSend(worker, address, DESCRIBE, patternArray),
                IllegalArgumentException.class, limit);
        }
        assertNull(handled.poll(), "a refused message is not handled");
        assertNoWorkerErrors();
    }

    @Test
    void badAddressesHandlerIdsAndCallersAreRefusedBeforeAnythingIsSent() throws Exception {
        FunctionShipping sending = shipping(0);
        int rings = cluster.config().placement().rings();
        String dataRegions = "is no data region of cluster shipping; objects live in data regions, on rings 0.." + (rings - 1)
            + ", region 0 excluded";
        long[] notObjects = {GlobalAddress.NULL, GlobalAddress.of(RegionId.system(1, 0), 64),
            GlobalAddress.of(RegionId.of(rings, 5), 64)};
        String[] regions = {"r0:0", "sys1.0", "r" + rings + ":5"};
        for (int i = 0; i < notObjects.length; i++) {
            long address = notObjects[i];
            String expected = "function shipping message to " + GlobalAddress.toString(address) + ": not an object address: region "
                + regions[i] + " " + dataRegions;
            assertRefused(0, worker -> sending.msgSend(worker, address, DESCRIBE, bytes("x")), IllegalArgumentException.class, expected);
            assertRefused(0, worker -> sending.msgSend(worker, address, DESCRIBE, MemorySegment.NULL, 0, 0),
                IllegalArgumentException.class, expected);
        }
        long address = addressWithPrimary(1);
        for (int id : new int[] {-1, 0x10000}) {
            assertRefused(0, worker -> sending.msgSend(worker, address, id, bytes("x")), IllegalArgumentException.class,
                "shipped-message handler id " + id + " is out of range: 0..65535");
        }
        IllegalStateException offWorker = assertThrows(IllegalStateException.class,
            () -> sending.msgSend(cluster.node(0).worker(0), address, DESCRIBE, bytes("x")));
        assertTrue(offWorker.getMessage().startsWith("msgSend must be called on the thread of a worker of node 0 with that worker,"
            + " not on " + Thread.currentThread().getName()), offWorker.getMessage());
        ExecutionException otherNode = assertThrows(ExecutionException.class, () -> await(cluster.node(1).submit(0, worker ->
            sending.msgSend(worker, address, DESCRIBE, bytes("x")))));
        assertInstanceOf(IllegalStateException.class, otherNode.getCause());
        assertTrue(otherNode.getCause().getMessage().endsWith("with a worker of node 1: submit it to the worker (Node.submit)"),
            otherNode.getCause().getMessage());
        assertNull(handled.poll(), "nothing refused was handled");
        assertNoWorkerErrors();
    }

    @Test
    void registrationAndAttachRefuseBadInputAndChangeNothing() throws Exception {
        FunctionShipping shipping = shipping(2);
        IllegalStateException twice = assertThrows(IllegalStateException.class, () -> shipping.msgRegisterHandler(DESCRIBE,
            (worker, sender, address, message, offset, length) -> CompletableFuture.completedFuture(bytes("impostor"))));
        assertEquals("shipped-message handler 1 is registered on node 2 already: each id has one handler per node", twice.getMessage());
        for (int id : new int[] {-1, 0x10000}) {
            IllegalArgumentException outOfRange = assertThrows(IllegalArgumentException.class, () -> shipping.msgRegisterHandler(id,
                (worker, sender, address, message, offset, length) -> CompletableFuture.completedFuture(bytes("never"))));
            assertEquals("shipped-message handler id " + id + " is out of range: 0..65535", outOfRange.getMessage());
        }
        assertThrows(NullPointerException.class, () -> shipping.msgRegisterHandler(100, null));
        assertTrue(await(send(0, 0, addressWithPrimary(2), DESCRIBE, "who?", false)).answer().startsWith("node 2 on "),
            "the first handler stays");
        RpcException unregistered = failure(await(send(0, 0, addressWithPrimary(2), 100, "", false)));
        assertTrue(unregistered.getMessage().contains("node 2 has no shipped-message handler 100"), unregistered.getMessage());

        IllegalStateException attachedTwice = assertThrows(IllegalStateException.class,
            () -> FunctionShipping.attach(cluster.node(2), rpcs.get(2)));
        assertTrue(attachedTwice.getMessage().contains("RPC method 5 is registered on node 2 already, as function-shipping"),
            attachedTwice.getMessage());
        IllegalArgumentException otherRpc = assertThrows(IllegalArgumentException.class,
            () -> FunctionShipping.attach(cluster.node(2), rpcs.get(1)));
        assertEquals("the RPC layer of node 1 cannot carry the shipped messages of node 2", otherRpc.getMessage());
        IllegalArgumentException noTimeout = assertThrows(IllegalArgumentException.class,
            () -> FunctionShipping.attach(cluster.node(2), rpcs.get(2), Duration.ZERO));
        assertEquals("function shipping timeout PT0S is not accepted: it must be positive", noTimeout.getMessage());
        assertEquals(FunctionShipping.DEFAULT_TIMEOUT, shipping.timeout());
    }

    @Test
    void aRemoteHandlerThatNeverAnswersFailsTheSendAfterTheTimeout() throws Exception {
        try (EmbeddedCluster pair = EmbeddedCluster.start(ClusterConfig.builder()
            .name("silent")
            .memberCount(2)
            .fabric("local")
            .threads(1)
            .regionSize(1 << 20)
            .dataDir(dataDir.resolve("silent"))
            .build())) {
            List<FunctionShipping> attached = new ArrayList<>();
            for (Node node : pair.nodes()) {
                FunctionShipping shipping = FunctionShipping.attach(node, Rpc.attach(node), Duration.ofMillis(100));
                shipping.msgRegisterHandler(DESCRIBE, (worker, sender, address, message, offset, length) -> new CompletableFuture<>());
                attached.add(shipping);
            }
            long ofNode1 = GlobalAddress.of(pair.config().placement().regionIdWithPrimary(1, random), 0);

            ExecutionException failed = assertThrows(ExecutionException.class, () -> await(pair.node(0).submit(0, worker ->
                attached.get(0).msgSend(worker, ofNode1, DESCRIBE, bytes("hello?")))));

            RpcException timedOut = assertInstanceOf(RpcException.class, failed.getCause());
            assertEquals(RpcException.Reason.TIMEOUT, timedOut.reason());
            assertTrue(timedOut.getMessage().contains("RPC function-shipping to node 1") && timedOut.getMessage().contains(
                "got no answer within PT0.1S"), timedOut.getMessage());
        }
    }

    /** Frames sent with the RPC layer directly: too short, for an address of another primary, for no object address. */
    @Test
    void malformedOrMisroutedShippedMessagesAreRefusedByTheReceiver() throws Exception {
        Rpc rpc = rpcs.get(0);
        long ofNode1 = addressWithPrimary(1);
        MemorySegment frame = Arena.ofAuto().allocate(ShippedMessageDescriptor.HEADER_LENGTH);

        ShippedMessageDescriptor.writeHeader(frame, 0, ofNode1, DESCRIBE);
        RpcException shortFrame = rawFailure(() -> cluster.node(0).submit(0, worker -> rpc.call(worker, 1, ShippedMessageDescriptor.SHIP,
            frame, 0, 8, Duration.ofSeconds(30), (result, offset, length) -> length)));
        assertTrue(shortFrame.getMessage().endsWith("failed: malformed shipped message from node 0: 8 bytes, shorter than its"
            + " 16-byte header"), shortFrame.getMessage());

        RpcException misrouted = rawFailure(() -> cluster.node(0).submit(0, worker -> rpc.call(worker, 2, ShippedMessageDescriptor.SHIP,
            frame, 0, ShippedMessageDescriptor.HEADER_LENGTH, Duration.ofSeconds(30), (result, offset, length) -> length)));
        assertTrue(misrouted.getMessage().endsWith("failed: node 0 shipped a message for " + GlobalAddress.toString(ofNode1)
            + " to node 2, but its region's primary is node 1"), misrouted.getMessage());

        ShippedMessageDescriptor.writeHeader(frame, 0, GlobalAddress.NULL, DESCRIBE);
        RpcException notAnObject = rawFailure(() -> cluster.node(0).submit(1, worker -> rpc.call(worker, 2, ShippedMessageDescriptor.SHIP,
            frame, 0, ShippedMessageDescriptor.HEADER_LENGTH, Duration.ofSeconds(30), (result, offset, length) -> length)));
        assertTrue(notAnObject.getMessage().endsWith("failed: function shipping message from node 0 to r0:0+0x0: not an object"
            + " address: region r0:0 is no data region of cluster shipping; objects live in data regions, on rings 0.."
            + (cluster.config().placement().rings() - 1) + ", region 0 excluded"), notAnObject.getMessage());
        assertNull(handled.poll(), "no refused frame was handled");
        assertNoWorkerErrors();
    }

    /** Sends {@code message} from worker {@code w} of node {@code sender}: as an array, or from a segment at offset 8. */
    private static CompletableFuture<Outcome> send(int sender, int w, long address, int id, String message, boolean asArray) {
        byte[] bytes = bytes(message);
        return cluster.node(sender).submit(w, worker -> {
            FunctionShipping shipping = shipping(sender);
            if (asArray) {
                return outcome(shipping.msgSend(worker, address, id, bytes));
            }
            MemorySegment segment = Arena.ofAuto().allocate(bytes.length + 16);
            segment.fill((byte) '#');
            MemorySegment.copy(bytes, 0, segment, ValueLayout.JAVA_BYTE, 8, bytes.length);
            return outcome(shipping.msgSend(worker, address, id, segment, 8, bytes.length));
        });
    }

    /** The outcome of a send, observed on the worker the stage completes on; called on the sending worker. */
    private static CompletionStage<Outcome> outcome(CompletionStage<byte[]> answer) {
        boolean doneWithinSend = answer.toCompletableFuture().isDone();
        return answer.handle((bytes, failure) -> new Outcome(bytes == null ? null : new String(bytes, StandardCharsets.UTF_8),
            failure, Worker.current(), doneWithinSend));
    }

    private static RpcException failure(Outcome outcome) {
        assertNull(outcome.answer(), "expected a failure, got an answer");
        return assertInstanceOf(RpcException.class, outcome.failure());
    }

    private static RpcException rawFailure(Supplier<CompletableFuture<Integer>> call) {
        ExecutionException failed = assertThrows(ExecutionException.class, () -> await(call.get()));
        RpcException rpcFailure = assertInstanceOf(RpcException.class, failed.getCause());
        assertEquals(RpcException.Reason.FAILED, rpcFailure.reason());
        return rpcFailure;
    }

    private static void assertRefused(int node, Function<NodeWorker, CompletionStage<byte[]>> send,
                                      Class<? extends RuntimeException> expected, String messagePart) {
        ExecutionException failed = assertThrows(ExecutionException.class, () -> await(cluster.node(node).submit(0, send)));
        RuntimeException refused = assertInstanceOf(expected, failed.getCause());
        assertTrue(refused.getMessage().contains(messagePart), () -> "\"" + refused.getMessage() + "\" lacks \"" + messagePart + "\"");
    }

    /** An address in a data region whose primary is {@code node}. */
    private static long addressWithPrimary(int node) {
        PlacementRing placement = cluster.config().placement();
        int regionId = placement.regionIdWithPrimary(node, random);
        assertEquals(node, placement.primary(regionId));
        return GlobalAddress.of(regionId, 64L * random.nextInt(1 << 14));
    }

    private static FunctionShipping shipping(int node) {
        return shippings.get(node);
    }

    private static void assertNoWorkerErrors() {
        for (Node node : cluster.nodes()) {
            assertEquals(0, node.workers().errorCount(), "failures reported by the workers of node " + node.id());
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(MemorySegment message, long offset, int length) {
        byte[] bytes = new byte[length];
        MemorySegment.copy(message, ValueLayout.JAVA_BYTE, offset, bytes, 0, length);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
