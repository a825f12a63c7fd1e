package io.farm.core.ship;

import io.farm.core.cluster.NodeWorker;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletionStage;

/**
 * An application's handler of shipped messages ({@link FunctionShipping#msgRegisterHandler}):
 * runs on a worker of the node that holds the primary of the message's address, and answers
 * with a stage of the bytes that go back to the sender.
 */
@FunctionalInterface
public interface ShippedHandler {
    /**
     * Handles one message. The handler may answer at once (a completed stage) or start
     * asynchronous work on {@code worker} (a transaction, reads of other nodes' objects) and
     * answer when it is done; the stage may complete on any thread, the answer is sent from
     * {@code worker}. An empty array answers nothing; the answer may be at most
     * {@link FunctionShipping#maxAnswerLength()} bytes. If the handler throws, returns null,
     * fails its stage, answers null or answers too much, the sender's stage fails with an
     * {@link io.farm.core.rpc.RpcException} carrying the reason.
     *
     * @param worker     the worker running the handler: worker t of the primary when worker t
     *                   of another node sent the message, the sending worker itself when it is
     *                   the primary's
     * @param senderNode the node that sent the message
     * @param address    the object address the message was sent to; its region's primary is
     *                   this node
     * @param message    the message, valid only during this call (copy what the answer needs later)
     * @param offset     where it starts in {@code message}
     * @param length     its length
     * @return the answer, completed once
     */
    CompletionStage<byte[]> handle(NodeWorker worker, int senderNode, long address, MemorySegment message, long offset,
                                   int length);
}
