package io.farm.core.ship;

import io.farm.core.addr.GlobalAddress;
import io.farm.core.addr.RegionId;
import io.farm.core.cluster.Node;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.placement.PlacementRing;
import io.farm.core.rpc.Rpc;
import io.farm.core.rpc.RpcException;
import io.farm.core.rpc.RpcReply;
import org.agrona.collections.Int2ObjectHashMap;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;

import static io.farm.core.ship.ShippedMessageDescriptor.HEADER_LENGTH;
import static io.farm.core.ship.ShippedMessageDescriptor.MAX_HANDLER;
import static io.farm.core.ship.ShippedMessageDescriptor.MIN_HANDLER;
import static io.farm.core.ship.ShippedMessageDescriptor.SHIP;

/**
 * Function shipping (FaRM NSDI'14 §3.2, Figure 6: {@code msgRegisterHandler}, {@code msgSend}):
 * an application message sent to an object address is handled by a worker of the node that
 * holds the primary of the address's region, and the handler's answer comes back to the
 * sender. With objects collocated on one primary, a handler can run there what would otherwise
 * be a distributed transaction as a single-machine one. One per node, attached with
 * {@link #attach(Node, Rpc)} on every member; messages travel as RPCs (method
 * {@value ShippedMessageDescriptor#SHIP}, layout in {@link ShippedMessageDescriptor}).
 *
 * <p><b>Sending.</b> Worker {@code t} of a node calls {@link #msgSend} with an address, a handler
 * id and a message. If another node is the primary of the address's region, the message goes
 * to that node's worker {@code t} (thread pairing of the RPC layer), which runs the handler; if
 * this node is, the handler runs at once on the sending worker, within {@code msgSend}, without
 * any messaging. Either way the returned stage completes on the sending worker (FaRM's
 * continuation rule), never within {@code msgSend} itself, with the handler's answer (a copy
 * of its own), or fails with an {@link RpcException}: {@link RpcException.Reason#FAILED} with
 * the reason when the primary has no such handler, the handler threw, failed its stage or
 * answered badly; the RPC layer's other reasons when the primary could not be reached or gave
 * no answer within the {@linkplain #timeout() timeout} (remote delivery only: a local handler
 * is not timed, there is no message to lose).
 *
 * <p><b>Handling.</b> Each node registers its handlers with {@link #msgRegisterHandler}; ids are
 * the application's, {@value ShippedMessageDescriptor#MIN_HANDLER} ..
 * {@value ShippedMessageDescriptor#MAX_HANDLER}. Every node should register the same handlers,
 * since any of them may hold the primary of an address. The answer is sent from the handling
 * worker whatever thread completes the handler's stage.
 *
 * <p><b>Bad input</b> is refused at once with an {@link IllegalArgumentException}, before
 * anything is sent or run: an address in no data region of the cluster (region 0, a system
 * region, a ring the cluster lacks), a handler id out of range, a message longer than
 * {@link #maxMessageLength()}. A call off the worker's thread, or with another node's worker,
 * is an {@link IllegalStateException}.
 */
public final class FunctionShipping {
    /** How long a remote delivery waits for the handler's answer by default. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    private static final String METHOD_NAME = "function-shipping";

    private final Node node;
    private final Rpc rpc;
    private final PlacementRing placement;
    private final Duration timeout;
    private final int maxMessageLength;
    /** Worker t composes its shipped messages in requests[t] (the RPC layer copies them at once); native. */
    private final MemorySegment[] requests;
    /** Worker t stages the answers it sends in answers[t] (the RPC layer copies them at once); native. */
    private final MemorySegment[] answers;
    private final Object registration = new Object();
    /**
     * The registered handlers, copy-on-write: registration builds a new map under
     * {@link #registration} and publishes it with this volatile write; a worker reads the field
     * once per message (a volatile read, so acquire) and sees a fully built map. A published
     * map is never changed.
     */
    private volatile Int2ObjectHashMap<ShippedHandler> handlers = new Int2ObjectHashMap<>();

    private FunctionShipping(Node node, Rpc rpc, Duration timeout) {
        this.node = node;
        this.rpc = rpc;
        this.placement = node.config().placement();
        this.timeout = timeout;
        this.maxMessageLength = rpc.maxBodyLength() - HEADER_LENGTH;
        int threads = node.config().threads();
        this.requests = new MemorySegment[threads];
        this.answers = new MemorySegment[threads];
        for (int w = 0; w < threads; w++) {
            requests[w] = Arena.ofAuto().allocate(rpc.maxBodyLength(), Long.BYTES);
            answers[w] = Arena.ofAuto().allocate(rpc.maxBodyLength(), Long.BYTES);
        }
    }

    /**
     * Function shipping for {@code node}, with remote deliveries timed out after
     * {@link #DEFAULT_TIMEOUT}; see {@link #attach(Node, Rpc, Duration)}.
     */
    public static FunctionShipping attach(Node node, Rpc rpc) {
        return attach(node, rpc, DEFAULT_TIMEOUT);
    }

    /**
     * Function shipping for {@code node}: registers RPC method {@value ShippedMessageDescriptor#SHIP}
     * on {@code rpc}. Attach every member before any of them sends.
     *
     * @param rpc     the node's RPC layer
     * @param timeout how long a remote delivery waits for the handler's answer; positive
     * @throws IllegalArgumentException if {@code rpc} is another node's or the timeout is not positive
     * @throws IllegalStateException    if the node has function shipping attached already (the RPC
     *                                  method is registered)
     */
    public static FunctionShipping attach(Node node, Rpc rpc, Duration timeout) {
        if (rpc.node() != node) {
            throw new IllegalArgumentException("the RPC layer of node " + rpc.node().id()
                + " cannot carry the shipped messages of node " + node.id());
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("function shipping timeout " + timeout + " is not accepted: it must be positive");
        }
        FunctionShipping shipping = new FunctionShipping(node, rpc, timeout);
        rpc.register(SHIP, METHOD_NAME, shipping::serve);
        return shipping;
    }

    /**
     * Registers {@code handler} for the messages sent to handler {@code id} on this node. Any thread.
     *
     * @param id the application's handler id, {@value ShippedMessageDescriptor#MIN_HANDLER} ..
     *           {@value ShippedMessageDescriptor#MAX_HANDLER}
     * @throws IllegalArgumentException if the id is out of range
     * @throws IllegalStateException    if a handler is registered for the id already
     */
    public void msgRegisterHandler(int id, ShippedHandler handler) {
        checkHandlerId(id);
        Objects.requireNonNull(handler, "handler");
        synchronized (registration) {
            if (handlers.containsKey(id)) {
                throw new IllegalStateException("shipped-message handler " + id + " is registered on node " + node.id()
                    + " already: each id has one handler per node");
            }
            Int2ObjectHashMap<ShippedHandler> next = new Int2ObjectHashMap<>(handlers);
            next.put(id, handler);
            handlers = next;
        }
    }

    /**
     * Sends {@code length} bytes of {@code message} at {@code offset} to handler {@code id} on the
     * primary of {@code address}'s region, and returns its answer (see the class comment). Runs on
     * {@code worker}'s thread; the message is copied or handled before this returns.
     *
     * @param address an object address: the message goes to the primary of its region
     * @param id      the handler, {@value ShippedMessageDescriptor#MIN_HANDLER} ..
     *                {@value ShippedMessageDescriptor#MAX_HANDLER}
     * @return the answer, completed on {@code worker}
     * @throws IllegalArgumentException if the address is in no data region of the cluster, the id
     *                                  is out of range, or the message exceeds {@link #maxMessageLength()}
     * @throws IllegalStateException    if called off {@code worker}'s thread or with another node's worker
     * @throws IndexOutOfBoundsException if {@code offset} and {@code length} are not within {@code message}
     */
    public CompletionStage<byte[]> msgSend(NodeWorker worker, long address, int id, MemorySegment message, long offset,
                                           int length) {
        int primary = checkSend(worker, address, id, length);
        Objects.checkFromIndexSize(offset, length, message.byteSize());
        if (primary == node.id()) {
            return deliverHere(worker, address, id, message, offset, length);
        }
        MemorySegment.copy(message, offset, requests[worker.index()], HEADER_LENGTH, length);
        return ship(worker, primary, address, id, length);
    }

    /**
     * Sends {@code message} to handler {@code id} on the primary of {@code address}'s region; as
     * {@link #msgSend(NodeWorker, long, int, MemorySegment, long, int)}.
     */
    public CompletionStage<byte[]> msgSend(NodeWorker worker, long address, int id, byte[] message) {
        int primary = checkSend(worker, address, id, message.length);
        if (primary == node.id()) {
            // The handler gets a native view that lives exactly as long as its call.
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment copy = arena.allocate(message.length, Long.BYTES);
                MemorySegment.copy(message, 0, copy, ValueLayout.JAVA_BYTE, 0, message.length);
                return deliverHere(worker, address, id, copy, 0, message.length);
            }
        }
        MemorySegment.copy(message, 0, requests[worker.index()], ValueLayout.JAVA_BYTE, HEADER_LENGTH, message.length);
        return ship(worker, primary, address, id, message.length);
    }

    /** Longest message: the RPC layer's largest body less the {@value ShippedMessageDescriptor#HEADER_LENGTH}-byte shipping header. */
    public int maxMessageLength() {
        return maxMessageLength;
    }

    /** Longest answer: the RPC layer's largest body. */
    public int maxAnswerLength() {
        return rpc.maxBodyLength();
    }

    /** How long a remote delivery waits for the handler's answer. */
    public Duration timeout() {
        return timeout;
    }

    /** The node whose handlers this registers and whose workers send. */
    public Node node() {
        return node;
    }

    /** Checks a send and returns the primary of the address's region. */
    private int checkSend(NodeWorker worker, long address, int id, int length) {
        if (worker.node() != node || !worker.worker().inWorkerThread()) {
            throw new IllegalStateException("msgSend must be called on the thread of a worker of node " + node.id()
                + " with that worker, not on " + Thread.currentThread().getName() + " with a worker of node "
                + worker.node().id() + ": submit it to the worker (Node.submit)");
        }
        int primary = primaryOf(address, "message to " + GlobalAddress.toString(address));
        checkHandlerId(id);
        if (length < 0 || length > maxMessageLength) {
            throw new IllegalArgumentException("shipped message of " + length + " bytes is not accepted: at most "
                + maxMessageLength + " bytes fit one message (the RPC layer's largest body, " + rpc.maxBodyLength()
                + ", less the " + HEADER_LENGTH + "-byte shipping header)");
        }
        return primary;
    }

    /** Sends the message staged in the worker's request buffer after its header to {@code primary}. */
    private CompletionStage<byte[]> ship(NodeWorker worker, int primary, long address, int id, int length) {
        MemorySegment request = requests[worker.index()];
        ShippedMessageDescriptor.writeHeader(request, 0, address, id);
        return rpc.call(worker, primary, SHIP, request, 0, HEADER_LENGTH + length, timeout, FunctionShipping::answerOf);
    }

    /** Runs the handler on the sending worker, now, and completes the stage on it in a later step. */
    private CompletionStage<byte[]> deliverHere(NodeWorker worker, long address, int id, MemorySegment message, long offset,
                                                int length) {
        CompletableFuture<byte[]> result = new CompletableFuture<>();
        runHandler(worker, node.id(), address, id, message, offset, length).whenComplete((answer, failure) -> {
            try {
                // From the worker's thread a continuation (a later step), from another its inbox.
                worker.worker().execute(() -> completeHere(result, answer, failure));
            } catch (RejectedExecutionException closing) {
                // The worker is closing: its remaining tasks run, but this one cannot be queued.
                result.completeExceptionally(closing);
            }
        });
        return result;
    }

    private void completeHere(CompletableFuture<byte[]> result, byte[] answer, Throwable failure) {
        if (failure == null) {
            result.complete(answer.clone());
        } else {
            // runHandler fails only with a HandlingFailure; the sender gets the handler's own exception as the cause.
            Throwable handling = unwrap(failure);
            result.completeExceptionally(new RpcException(RpcException.Reason.FAILED, "function shipping to node " + node.id()
                + " (local delivery, no RPC) failed: " + handling.getMessage(), handling.getCause()));
        }
    }

    /** Serves RPC method SHIP on the receiving worker: runs the handler and answers from this worker. */
    private void serve(NodeWorker worker, int sender, MemorySegment arguments, long offset, int length, RpcReply reply) {
        if (length < HEADER_LENGTH) {
            throw new IllegalArgumentException("malformed shipped message from node " + sender + ": " + length
                + " bytes, shorter than its " + HEADER_LENGTH + "-byte header");
        }
        long address = ShippedMessageDescriptor.address(arguments, offset);
        int id = ShippedMessageDescriptor.handler(arguments, offset);
        int primary = primaryOf(address, "message from node " + sender + " to " + GlobalAddress.toString(address));
        if (primary != node.id()) {
            throw new IllegalArgumentException("node " + sender + " shipped a message for " + GlobalAddress.toString(address)
                + " to node " + node.id() + ", but its region's primary is node " + primary);
        }
        runHandler(worker, sender, address, id, arguments, offset + HEADER_LENGTH, length - HEADER_LENGTH)
            .whenComplete((answer, failure) -> {
                if (worker.worker().inWorkerThread()) {
                    answer(worker, reply, answer, failure);
                    return;
                }
                try {
                    worker.worker().execute(() -> answer(worker, reply, answer, failure));
                } catch (RejectedExecutionException closing) {
                    // The node is closing: no answer can be sent any more; the sender's timeout ends its call.
                }
            });
    }

    private void answer(NodeWorker worker, RpcReply reply, byte[] answer, Throwable failure) {
        if (failure != null) {
            reply.fail(unwrap(failure).getMessage());
            return;
        }
        MemorySegment staged = answers[worker.index()];
        MemorySegment.copy(answer, 0, staged, ValueLayout.JAVA_BYTE, 0, answer.length);
        reply.ok(staged, 0, answer.length);
    }

    /**
     * Runs handler {@code id} on {@code worker} with the message (valid during this call only)
     * and returns its checked answer, or a stage failed with a {@link HandlingFailure} whose
     * message is the reason.
     */
    private CompletionStage<byte[]> runHandler(NodeWorker worker, int sender, long address, int id, MemorySegment message,
                                               long offset, int length) {
        ShippedHandler handler = handlers.get(id);
        if (handler == null) {
            return CompletableFuture.failedFuture(new HandlingFailure("node " + node.id() + " has no shipped-message handler "
                + id + " (it has " + registered() + ")", null));
        }
        String name = "shipped-message handler " + id + " on node " + node.id();
        CompletionStage<byte[]> stage;
        try {
            stage = handler.handle(worker, sender, address, message, offset, length);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new HandlingFailure(name + " failed: " + messageOf(e), e));
        }
        if (stage == null) {
            return CompletableFuture.failedFuture(new HandlingFailure(name + " returned null instead of a stage", null));
        }
        return stage.handle((answer, failure) -> {
            if (failure != null) {
                Throwable cause = unwrap(failure);
                throw new HandlingFailure(name + " failed: " + messageOf(cause), cause);
            }
            if (answer == null) {
                throw new HandlingFailure(name + " answered null: an empty array answers nothing", null);
            }
            if (answer.length > maxAnswerLength()) {
                throw new HandlingFailure(name + " answered " + answer.length + " bytes: at most " + maxAnswerLength()
                    + " fit one message", null);
            }
            return answer;
        });
    }

    /**
     * The primary of the region of {@code address}.
     *
     * @throws IllegalArgumentException if the address is in no data region of this cluster
     */
    private int primaryOf(long address, String what) {
        int regionId = GlobalAddress.regionId(address);
        if (!placement.isDataRegion(regionId)) {
            throw new IllegalArgumentException("function shipping " + what + ": not an object address: region "
                + RegionId.toString(regionId) + " is no data region of cluster " + node.config().name()
                + "; objects live in data regions, on rings 0.." + (placement.rings() - 1) + ", region 0 excluded");
        }
        return placement.primary(regionId);
    }

    private String registered() {
        int[] ids = handlers.keySet().stream().mapToInt(Integer::intValue).sorted().toArray();
        return ids.length == 0 ? "none" : "handlers " + Arrays.toString(ids);
    }

    private static void checkHandlerId(int id) {
        if (id < MIN_HANDLER || id > MAX_HANDLER) {
            throw new IllegalArgumentException("shipped-message handler id " + id + " is out of range: " + MIN_HANDLER + ".."
                + MAX_HANDLER);
        }
    }

    /** Decodes an answer: the result's bytes as they are. */
    private static byte[] answerOf(MemorySegment result, long offset, int length) {
        byte[] answer = new byte[length];
        MemorySegment.copy(result, ValueLayout.JAVA_BYTE, offset, answer, 0, length);
        return answer;
    }

    private static String messageOf(Throwable failure) {
        return failure.getMessage() != null ? failure.getMessage() : failure.toString();
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException wrapped && wrapped.getCause() != null ? wrapped.getCause() : failure;
    }

    /** Why a handler produced no answer; its message is the reason the sender gets. */
    private static final class HandlingFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        HandlingFailure(String reason, Throwable cause) {
            super(reason, cause, false, false);
        }
    }
}
