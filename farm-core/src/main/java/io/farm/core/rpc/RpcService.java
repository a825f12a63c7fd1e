package io.farm.core.rpc;

import io.farm.core.cluster.NodeWorker;

import java.lang.foreign.MemorySegment;

/**
 * One RPC method of a node ({@link Rpc#register}): serves requests on the worker that received
 * them and answers each exactly once through its {@link RpcReply}, now or later, on that worker.
 */
@FunctionalInterface
public interface RpcService {
    /**
     * Serves one request. A service that throws before answering fails the call with
     * {@link RpcException.Reason#FAILED} and the exception's message: throw
     * {@link IllegalArgumentException} for malformed arguments, naming what is wrong.
     *
     * @param worker     the receiving worker (the answer must be sent from its thread)
     * @param senderNode the calling node
     * @param arguments  the arguments, valid only during this call
     * @param offset     where they start in {@code arguments}
     * @param length     their length
     * @param reply      where the answer goes
     */
    void serve(NodeWorker worker, int senderNode, MemorySegment arguments, long offset, int length, RpcReply reply);
}
