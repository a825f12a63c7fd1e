package io.farm.core.msg;

import java.lang.foreign.MemorySegment;

/** Receives the messages of message rings, on the worker that polls them. */
@FunctionalInterface
public interface MessageHandler {
    /**
     * One message. The payload is {@code length} bytes of {@code payload} at {@code offset}; the
     * view is into the ring itself and valid only during this call (the ring space is zeroed and
     * reused after it returns): copy what must outlive it. If the handler throws, the message is
     * consumed and the exception propagates out of the poll.
     *
     * @param senderNode   node that sent the message
     * @param senderThread worker thread of that node that sent it (the same index as the receiving worker's)
     * @param type         the handler id the sender gave, 0 .. {@value RecordDescriptor#MAX_TYPE}
     */
    void onMessage(int senderNode, int senderThread, int type, MemorySegment payload, long offset, int length);
}
