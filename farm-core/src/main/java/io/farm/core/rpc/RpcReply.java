package io.farm.core.rpc;

import io.farm.core.cluster.NodeWorker;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The answer to one RPC request, given exactly once by the {@link RpcService} that serves it,
 * from the thread of the worker that received the request (the answer travels on that worker's
 * message ring back to the calling worker). Not thread-safe: confined to that worker.
 */
public final class RpcReply {
    private final Rpc rpc;
    private final NodeWorker worker;
    private final int caller;
    private final long requestId;
    private final String method;
    private boolean answered;

    RpcReply(Rpc rpc, NodeWorker worker, int caller, long requestId, String method) {
        this.rpc = rpc;
        this.worker = worker;
        this.caller = caller;
        this.requestId = requestId;
        this.method = method;
    }

    /**
     * Answers with an empty result.
     *
     * @throws IllegalStateException as {@link #ok(MemorySegment, long, int)}
     */
    public void ok() {
        ok(MemorySegment.NULL, 0, 0);
    }

    /**
     * Answers with a result of {@code length} bytes of {@code result} at {@code offset} (copied at once).
     *
     * @throws IllegalArgumentException if the result exceeds {@link Rpc#maxBodyLength()}
     * @throws IllegalStateException    if the request was answered already or this is not the
     *                                  receiving worker's thread
     */
    public void ok(MemorySegment result, long offset, int length) {
        rpc.checkBodyLength("result of RPC " + method, length);
        claim();
        rpc.answer(worker, caller, requestId, RpcMessageDescriptor.OK, result, offset, length);
    }

    /**
     * Fails the call with {@code reason} (cut to what fits a message); the caller's stage fails
     * with {@link RpcException.Reason#FAILED} and this reason.
     *
     * @throws IllegalStateException as {@link #ok(MemorySegment, long, int)}
     */
    public void fail(String reason) {
        Objects.requireNonNull(reason, "reason");
        claim();
        rpc.answerReason(worker, caller, requestId, RpcMessageDescriptor.FAILED, reason);
    }

    /** Whether the request has been answered. */
    public boolean answered() {
        return answered;
    }

    /** Answers with a status other than OK or FAILED (the RPC layer's own refusals). */
    void refuse(int status, String reason) {
        claim();
        rpc.answerReason(worker, caller, requestId, status, reason);
    }

    private void claim() {
        if (!worker.worker().inWorkerThread()) {
            throw new IllegalStateException("the answer to RPC " + method + " request " + requestId + " from node " + caller
                + " must be given on the thread of worker " + worker.worker().name() + ", not on "
                + Thread.currentThread().getName());
        }
        if (answered) {
            throw new IllegalStateException("RPC " + method + " request " + requestId + " from node " + caller
                + " was answered already: a request gets exactly one answer");
        }
        answered = true;
    }
}
