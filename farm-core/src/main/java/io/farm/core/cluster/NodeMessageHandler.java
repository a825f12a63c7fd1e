package io.farm.core.cluster;

import java.lang.foreign.MemorySegment;

/**
 * Handles messages of one type arriving at a node, on the worker that polled them; the handler
 * replies, if it wants to, through {@code worker.messenger()} to {@code senderNode}, which lands
 * on the ring polled by the sender's issuing worker (see {@link io.farm.core.msg.MessagingLayout}).
 */
@FunctionalInterface
public interface NodeMessageHandler {
    /**
     * @param worker     the receiving worker's context
     * @param senderNode the node that sent the message
     * @param type       the message type
     * @param payload    the payload, valid only during this call
     * @param offset     where the payload starts in {@code payload}
     * @param length     the payload length
     */
    void onMessage(NodeWorker worker, int senderNode, int type, MemorySegment payload, long offset, int length);
}
