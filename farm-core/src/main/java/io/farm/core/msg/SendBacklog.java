package io.farm.core.msg;

import io.farm.core.fabric.Completion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * Records waiting, in order, for room in one ring: what {@link Messenger#send} keeps when the
 * ring is full. Payloads are copied, so the caller may reuse its buffer at once. Confined to the
 * sending worker.
 */
final class SendBacklog {
    private record Pending(int type, MemorySegment payload, Completion completion) {
    }

    private final ArrayDeque<Pending> pending = new ArrayDeque<>();

    /** Queues a copy of the record (already checked against the ring). */
    void add(int type, MemorySegment src, long offset, int length, Completion completion) {
        // Native, like every segment of farm's production code (docs/decisions.md, Benchmarks).
        MemorySegment copy = Arena.ofAuto().allocate(Math.max(length, 1), Long.BYTES).asSlice(0, length);
        MemorySegment.copy(src, offset, copy, 0, length);
        pending.addLast(new Pending(type, copy, completion));
    }

    /** Offers the queued records to {@code writer} in order until one does not fit; returns whether none is left. */
    boolean flush(RingWriter writer) {
        Pending next;
        while ((next = pending.peekFirst()) != null) {
            if (!writer.offer(next.type, next.payload, 0, (int) next.payload.byteSize(), next.completion)) {
                return false;
            }
            pending.removeFirst();
        }
        return true;
    }

    boolean isEmpty() {
        return pending.isEmpty();
    }

    int size() {
        return pending.size();
    }
}
