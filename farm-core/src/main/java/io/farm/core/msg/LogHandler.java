package io.farm.core.msg;

import java.lang.foreign.MemorySegment;

/** Receives the records of log rings, on the worker that polls them. */
@FunctionalInterface
public interface LogHandler {
    /**
     * One log record, delivered once. The payload is {@code length} bytes of {@code payload} at
     * {@code offset}, a view into the ring; the bytes stay in place until the record is
     * truncated with its {@code position}, which may be done from inside this call.
     *
     * @param senderNode   node that wrote the record
     * @param senderThread worker thread of that node that wrote it
     * @param type         the handler id the sender gave
     * @param position     the record's position in its ring, the handle for truncating it
     */
    void onLogRecord(int senderNode, int senderThread, int type, long position, MemorySegment payload, long offset,
                     int length);
}
