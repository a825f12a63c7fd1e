package io.farm.bench.fabric;

import io.farm.core.msg.Messenger;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Random reads issued as request/response messages over the message rings: the server's
 * worker copies the bytes into a response (FaRM's RPC baseline of Figure 2).
 */
final class RpcReads extends ReadPipeline {
    private final Messenger messenger;
    private final int server;
    private final MemorySegment request = Arena.ofAuto().allocate(ReadProtocol.REQUEST_LENGTH, Long.BYTES);

    RpcReads(Messenger messenger, int server, long regionSize, int size, int depth, long durationNanos, long seed) {
        super(regionSize, size, depth, durationNanos, seed);
        this.messenger = messenger;
        this.server = server;
    }

    @Override
    protected void issue(int slot, long offset) {
        request.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, slot);
        request.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, offset);
        request.set(ValueLayout.JAVA_INT_UNALIGNED, 16, size);
        messenger.send(server, ReadProtocol.REQUEST, request, 0, ReadProtocol.REQUEST_LENGTH);
    }

    /** A response arrived on this worker: copy the bytes out and complete the slot. */
    void onResponse(MemorySegment payload, long offset, int length) {
        if (length != 8 + size) {
            throw new IllegalStateException("malformed read response of " + length + " bytes (expected " + (8 + size) + ")");
        }
        int slot = (int) payload.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
        MemorySegment.copy(payload, offset + 8, buffers[slot], 0, size);
        completed(slot, null);
    }
}
