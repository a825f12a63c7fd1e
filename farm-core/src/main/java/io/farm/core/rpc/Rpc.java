package io.farm.core.rpc;

import io.farm.core.cluster.Node;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.fabric.FabricException;
import io.farm.core.msg.RecordDescriptor;
import io.farm.core.msg.RingKind;
import io.farm.core.node.Worker;
import org.agrona.collections.Long2ObjectHashMap;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static io.farm.core.rpc.RpcMessageDescriptor.FAILED;
import static io.farm.core.rpc.RpcMessageDescriptor.OK;
import static io.farm.core.rpc.RpcMessageDescriptor.RPC_HEADER_LENGTH;
import static io.farm.core.rpc.RpcMessageDescriptor.RPC_REQUEST;
import static io.farm.core.rpc.RpcMessageDescriptor.RPC_RESPONSE;
import static io.farm.core.rpc.RpcMessageDescriptor.STATIC_CONFIGURATION;
import static io.farm.core.rpc.RpcMessageDescriptor.UNKNOWN_METHOD;
import static io.farm.core.rpc.RpcMessageDescriptor.WRONG_CONFIGURATION;

/**
 * Request/response calls between the workers of a cluster over the message rings (FaRM
 * NSDI'14 §3.1 runs its RPCs on the same rings as every message); layouts in
 * {@link RpcMessageDescriptor}. One per node, attached once with {@link #attach(Node)}.
 *
 * <p><b>Calling.</b> Worker {@code t} of node A calls {@link #call} with a method, its arguments,
 * a timeout and a decoder of the result; the request goes to B's worker {@code t}, whose answer
 * comes back on A's ring polled by A's worker {@code t} (thread pairing, see
 * {@link io.farm.core.msg.MessagingLayout}). So the returned stage completes on the calling
 * worker (FaRM's continuation rule), and each worker's outstanding calls are its own: request
 * ids, the table of outstanding calls and the deadlines are confined to the worker, no lock.
 * A stage fails with an {@link RpcException} saying why: the callee refused or failed the call,
 * does not know the method or is in another configuration; its answer is malformed; no answer
 * came within the timeout (checked once per event-loop step while calls are outstanding, so a
 * parked worker notices within its park period); or the callee's node is unreachable. An answer
 * that arrives after its call timed out is dropped and counted ({@link #unmatchedResponses()}).
 *
 * <p><b>Serving.</b> A node serves the methods registered with {@link #register}; each request
 * runs its {@link RpcService} on the receiving worker, which answers once through its
 * {@link RpcReply}, at once or later (after its own remote operations) but always on that worker.
 * A request for a method the node lacks is answered {@link RpcException.Reason#UNKNOWN_METHOD};
 * one too short to carry a request id cannot be answered and is reported on the receiving worker
 * (its error handler); the caller's timeout ends the call.
 *
 * <p>Memory management calls through it: the backups of a new region
 * ({@link io.farm.core.alloc.RegionAllocator}) and allocations and frees in another node's regions
 * ({@link io.farm.core.alloc.NodeAllocator}).
 */
public final class Rpc {
    private static final String WHAT_REQUEST = "RPC request";
    private static final String WHAT_RESPONSE = "RPC response";

    private final Node node;
    private final AtomicReferenceArray<Method> methods = new AtomicReferenceArray<>(RpcMessageDescriptor.MAX_METHOD + 1);
    private final Calls[] calls;
    private final int maxBodyLength;
    private final AtomicLong unmatchedResponses = new AtomicLong();

    /** A registered method. */
    private record Method(String name, RpcService service) {
    }

    private Rpc(Node node) {
        this.node = node;
        this.maxBodyLength = RecordDescriptor.maxPayloadLength(node.messagingLayout().capacity(RingKind.MESSAGE))
            - RPC_HEADER_LENGTH;
        this.calls = new Calls[node.config().threads()];
        for (int i = 0; i < calls.length; i++) {
            calls[i] = new Calls(maxBodyLength + RPC_HEADER_LENGTH);
        }
    }

    /**
     * Attaches RPCs to {@code node}: registers the request and response handlers
     * ({@link RpcMessageDescriptor#RPC_REQUEST}, {@link RpcMessageDescriptor#RPC_RESPONSE})
     * and a timeout check on every worker. Attach every node of a cluster before any of them calls.
     *
     * @throws IllegalStateException if the node has RPCs attached already
     */
    public static Rpc attach(Node node) {
        Rpc rpc = new Rpc(node);
        node.registerSystemHandler(RPC_REQUEST, rpc::onRequest);
        node.registerSystemHandler(RPC_RESPONSE, rpc::onResponse);
        for (int i = 0; i < rpc.calls.length; i++) {
            int index = i;
            Worker worker = node.workers().worker(index);
            // Pollers are added on their worker's thread; the check starts with the worker's next step.
            worker.execute(() -> worker.addPoller(() -> rpc.expire(index)));
        }
        return rpc;
    }

    /**
     * Registers method {@code method} (0 .. {@value RpcMessageDescriptor#MAX_METHOD}),
     * served by {@code service}. Every node registers the same methods: {@code name} names the
     * method in the messages of both callers and callees.
     *
     * @throws IllegalArgumentException if the method number is out of range or the name is blank
     * @throws IllegalStateException    if the method is registered already
     */
    public void register(int method, String name, RpcService service) {
        checkMethod(method);
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("RPC method " + method + " needs a name for messages, not '" + name + "'");
        }
        Objects.requireNonNull(service, "service");
        if (!methods.compareAndSet(method, null, new Method(name, service))) {
            throw new IllegalStateException("RPC method " + method + " is registered on node " + node.id() + " already, as "
                + methods.get(method).name());
        }
    }

    /**
     * Calls {@code method} of node {@code target} with {@code length} bytes of {@code arguments}
     * at {@code offset} (copied at once). Runs on {@code worker}'s thread; the stage completes
     * there with the decoded result, or fails with an {@link RpcException}.
     *
     * @param timeout how long to wait for the answer; positive
     * @throws IllegalArgumentException if the target is not a member, the method is out of range,
     *                                  the arguments exceed {@link #maxBodyLength()} or the
     *                                  timeout is not positive
     * @throws IllegalStateException    if called off {@code worker}'s thread or with a worker of another node
     */
    public <T> CompletionStage<T> call(NodeWorker worker, int target, int method, MemorySegment arguments, long offset,
                                       int length, Duration timeout, RpcDecoder<T> decoder) {
        requireOwnWorker(worker, "call");
        if (target < 0 || target >= node.config().size()) {
            throw new IllegalArgumentException("node " + target + " is not a member of cluster " + node.config().name()
                + ": members are 0.." + (node.config().size() - 1));
        }
        checkMethod(method);
        checkBodyLength("arguments of RPC " + methodName(method), length);
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("RPC timeout " + timeout + " is not accepted: it must be positive");
        }
        Objects.requireNonNull(decoder, "decoder");
        Calls own = calls[worker.index()];
        long requestId = own.lastRequestId + 1;
        MemorySegment staging = own.staging;
        MemorySegment.copy(arguments, offset, staging, RPC_HEADER_LENGTH, length);
        RpcMessageDescriptor.writeRequestHeader(staging, 0, STATIC_CONFIGURATION, requestId, method);
        own.lastRequestId = requestId;
        Pending<T> pending = new Pending<>(target, method, requestId, System.nanoTime() + timeout.toNanos(), timeout, decoder);
        own.add(pending);
        try {
            worker.messenger().send(target, RPC_REQUEST, staging, 0, RPC_HEADER_LENGTH + length, failure -> {
                if (failure != null && own.remove(requestId) != null) {
                    pending.fail(RpcException.Reason.UNREACHABLE, "could not be delivered: " + failure.getMessage(), failure);
                }
            });
        } catch (FabricException failure) {
            own.remove(requestId);
            pending.fail(RpcException.Reason.UNREACHABLE, "could not be sent: " + failure.getMessage(), failure);
        } catch (RuntimeException | Error e) {
            own.remove(requestId);
            throw e;
        }
        return pending.result;
    }

    /** Largest arguments of a call, and largest result of an answer: what fits one message with the RPC header. */
    public int maxBodyLength() {
        return maxBodyLength;
    }

    /** Answers that matched no outstanding call of their worker (it had timed out, say) and were dropped. */
    public long unmatchedResponses() {
        return unmatchedResponses.get();
    }

    /** The node this RPC layer belongs to. */
    public Node node() {
        return node;
    }

    void checkBodyLength(String what, int length) {
        if (length < 0 || length > maxBodyLength) {
            throw new IllegalArgumentException(what + " has " + length + " bytes: at most " + maxBodyLength
                + " fit one message (the message ring capacity's quarter, less the record's and the RPC's headers)");
        }
    }

    private void onRequest(NodeWorker worker, int sender, int type, MemorySegment payload, long offset, int length) {
        RpcMessageDescriptor.requireAtLeast(WHAT_REQUEST, sender, length, RPC_HEADER_LENGTH);
        long requestId = RpcMessageDescriptor.requestId(payload, offset);
        int method = RpcMessageDescriptor.method(payload, offset);
        long configuration = RpcMessageDescriptor.configuration(payload, offset);
        Method served = method >= 0 && method <= RpcMessageDescriptor.MAX_METHOD ? methods.get(method) : null;
        RpcReply reply = new RpcReply(this, worker, sender, requestId, served != null ? served.name() : "method " + method);
        if (configuration != STATIC_CONFIGURATION) {
            reply.refuse(WRONG_CONFIGURATION, "node " + node.id() + " is in configuration " + STATIC_CONFIGURATION
                + ", the request was made in configuration " + configuration);
            return;
        }
        if (served == null) {
            reply.refuse(UNKNOWN_METHOD, "node " + node.id() + " has no RPC method " + method + " (it serves " + registered() + ")");
            return;
        }
        try {
            served.service().serve(worker, sender, payload, offset + RPC_HEADER_LENGTH, length - RPC_HEADER_LENGTH, reply);
        } catch (RuntimeException e) {
            if (reply.answered()) {
                throw e;
            }
            boolean explained = (e instanceof IllegalArgumentException || e instanceof IllegalStateException) && e.getMessage() != null;
            reply.fail(explained ? e.getMessage() : e.toString());
        }
    }

    private void onResponse(NodeWorker worker, int sender, int type, MemorySegment payload, long offset, int length) {
        RpcMessageDescriptor.requireAtLeast(WHAT_RESPONSE, sender, length, RPC_HEADER_LENGTH);
        long requestId = RpcMessageDescriptor.requestId(payload, offset);
        Calls own = calls[worker.index()];
        Pending<?> pending = own.get(requestId);
        if (pending == null) {
            unmatchedResponses.incrementAndGet();
            return;
        }
        if (pending.target != sender) {
            throw new IllegalArgumentException("malformed " + WHAT_RESPONSE + " from node " + sender + ": it answers request "
                + requestId + " of worker " + worker.index() + ", which went to node " + pending.target + "; dropped");
        }
        own.remove(requestId);
        long configuration = RpcMessageDescriptor.configuration(payload, offset);
        int status = RpcMessageDescriptor.status(payload, offset);
        long bodyOffset = offset + RPC_HEADER_LENGTH;
        int bodyLength = length - RPC_HEADER_LENGTH;
        if (configuration != STATIC_CONFIGURATION) {
            pending.fail(RpcException.Reason.WRONG_CONFIGURATION, "was answered from configuration " + configuration
                + ", not " + STATIC_CONFIGURATION, null);
            return;
        }
        switch (status) {
            case OK -> pending.decode(payload, bodyOffset, bodyLength);
            case FAILED -> pending.fail(RpcException.Reason.FAILED, "failed: "
                + RpcMessageDescriptor.reason(payload, bodyOffset, bodyLength), null);
            case UNKNOWN_METHOD -> pending.fail(RpcException.Reason.UNKNOWN_METHOD, "was refused: "
                + RpcMessageDescriptor.reason(payload, bodyOffset, bodyLength), null);
            case WRONG_CONFIGURATION -> pending.fail(RpcException.Reason.WRONG_CONFIGURATION, "was refused: "
                + RpcMessageDescriptor.reason(payload, bodyOffset, bodyLength), null);
            default -> pending.fail(RpcException.Reason.MALFORMED_RESPONSE, "was answered with "
                + RpcMessageDescriptor.statusName(status) + ", which is no RPC status", null);
        }
    }

    /** Sends an answer with a body of a checked length: called by {@link RpcReply} on the receiving worker. */
    void answer(NodeWorker worker, int caller, long requestId, int status, MemorySegment body, long offset, int length) {
        MemorySegment staging = calls[worker.index()].staging;
        RpcMessageDescriptor.writeResponseHeader(staging, 0, STATIC_CONFIGURATION, requestId, status);
        MemorySegment.copy(body, offset, staging, RPC_HEADER_LENGTH, length);
        send(worker, caller, RPC_HEADER_LENGTH + length);
    }

    /** Sends an answer whose body is a reason (cut to what fits). */
    void answerReason(NodeWorker worker, int caller, long requestId, int status, String reason) {
        MemorySegment staging = calls[worker.index()].staging;
        RpcMessageDescriptor.writeResponseHeader(staging, 0, STATIC_CONFIGURATION, requestId, status);
        int length = RpcMessageDescriptor.writeReason(staging, RPC_HEADER_LENGTH, reason, maxBodyLength);
        send(worker, caller, RPC_HEADER_LENGTH + length);
    }

    private void send(NodeWorker worker, int caller, int length) {
        try {
            worker.messenger().send(caller, RPC_RESPONSE, calls[worker.index()].staging, 0, length);
        } catch (FabricException unreachable) {
            // The caller's node is gone: nobody waits for this answer any more.
        }
    }

    /** Fails the calls of worker {@code index} whose deadline has passed; its poller, once per step. */
    private int expire(int index) {
        Calls own = calls[index];
        if (own.isEmpty()) {
            return 0;
        }
        long now = System.nanoTime();
        if (now - own.nextDeadline < 0) {
            return 0;
        }
        List<Pending<?>> expired = own.removeExpired(now);
        for (Pending<?> pending : expired) {
            pending.fail(RpcException.Reason.TIMEOUT, "got no answer within " + pending.timeout
                + " (the callee may still act on it)", null);
        }
        return expired.size();
    }

    private void requireOwnWorker(NodeWorker worker, String operation) {
        if (worker.node() != node) {
            throw new IllegalStateException("RPC " + operation + " on node " + node.id() + " with a worker of node "
                + worker.node().id());
        }
        if (!worker.worker().inWorkerThread()) {
            throw new IllegalStateException("RPC " + operation + " must run on the thread of worker " + worker.worker().name()
                + ", not on " + Thread.currentThread().getName() + ": submit it to the worker (Node.submit)");
        }
    }

    private static void checkMethod(int method) {
        if (method < 0 || method > RpcMessageDescriptor.MAX_METHOD) {
            throw new IllegalArgumentException("RPC method " + method + " is out of range: 0.."
                + RpcMessageDescriptor.MAX_METHOD);
        }
    }

    private String methodName(int method) {
        Method registered = methods.get(method);
        return registered != null ? registered.name() : "method " + method;
    }

    private String registered() {
        StringJoiner names = new StringJoiner(", ", "[", "]");
        for (int method = 0; method <= RpcMessageDescriptor.MAX_METHOD; method++) {
            Method registered = methods.get(method);
            if (registered != null) {
                names.add(method + " " + registered.name());
            }
        }
        return names.toString();
    }

    /** One worker's outstanding calls; confined to that worker. */
    private static final class Calls {
        final Long2ObjectHashMap<Pending<?>> pending = new Long2ObjectHashMap<>();
        /** Where requests and answers are composed; native, like every segment of production code. */
        final MemorySegment staging;
        long lastRequestId;
        /** No outstanding call expires before this (it may be earlier than the earliest: then a scan corrects it). */
        long nextDeadline;

        Calls(int stagingLength) {
            this.staging = Arena.ofAuto().allocate(stagingLength, Long.BYTES);
        }

        boolean isEmpty() {
            return pending.isEmpty();
        }

        void add(Pending<?> call) {
            if (pending.isEmpty() || call.deadline - nextDeadline < 0) {
                nextDeadline = call.deadline;
            }
            pending.put(call.requestId, call);
        }

        Pending<?> get(long requestId) {
            return pending.get(requestId);
        }

        Pending<?> remove(long requestId) {
            return pending.remove(requestId);
        }

        /** Removes and returns the calls due at {@code now}, and moves the next deadline to the earliest left. */
        List<Pending<?>> removeExpired(long now) {
            List<Pending<?>> expired = new ArrayList<>();
            long earliest = now + Long.MAX_VALUE / 2;
            for (Iterator<Pending<?>> it = pending.values().iterator(); it.hasNext(); ) {
                Pending<?> call = it.next();
                if (now - call.deadline >= 0) {
                    it.remove();
                    expired.add(call);
                } else if (call.deadline - earliest < 0) {
                    earliest = call.deadline;
                }
            }
            nextDeadline = earliest;
            return expired;
        }
    }

    /** An outstanding call; completed on its worker, once. */
    private final class Pending<T> {
        final int target;
        final int method;
        final long requestId;
        final long deadline;
        final Duration timeout;
        final RpcDecoder<T> decoder;
        final CompletableFuture<T> result = new CompletableFuture<>();

        Pending(int target, int method, long requestId, long deadline, Duration timeout, RpcDecoder<T> decoder) {
            this.target = target;
            this.method = method;
            this.requestId = requestId;
            this.deadline = deadline;
            this.timeout = timeout;
            this.decoder = decoder;
        }

        void decode(MemorySegment payload, long offset, int length) {
            T value;
            try {
                value = decoder.decode(payload, offset, length);
            } catch (RuntimeException e) {
                fail(RpcException.Reason.MALFORMED_RESPONSE, "was answered with a malformed result: " + e.getMessage(), e);
                return;
            }
            result.complete(value);
        }

        void fail(RpcException.Reason reason, String what, Throwable cause) {
            result.completeExceptionally(new RpcException(reason, "RPC " + methodName(method) + " to node " + target
                + " (request " + requestId + " of node " + node.id() + ") " + what, cause));
        }
    }
}
