package io.farm.core.fabric;

import java.lang.foreign.MemorySegment;

/**
 * One worker's access to the fabric, the analog of its queue pairs and completion queue.
 * A port is confined to the thread that opened it: operations are issued and completions
 * are delivered on that thread only.
 *
 * <p>Arguments are checked when an operation is issued: a bad capability, an offset or length
 * outside the registered region or the local buffer, or an unregistered region throw at once
 * (a {@link FabricException}) and nothing is written. A peer that is unreachable fails the
 * operation through its {@link Completion}.
 */
public interface FabricPort extends AutoCloseable {
    /**
     * One-sided read of {@code length} bytes at {@code offset} of the remote region into
     * {@code dst} at {@code dstOffset}. Every 64-byte line of the region is read consistently
     * with respect to writers that follow the line-version protocol (DESIGN §4.2).
     */
    void read(Capability target, long offset, int length, MemorySegment dst, long dstOffset, Completion completion);

    /**
     * One-sided write of {@code length} bytes of {@code src} at {@code srcOffset} to the
     * remote region at {@code offset}. When the last 8-byte word of the write is visible at
     * the target, every earlier byte of it is too (DESIGN §4.1).
     */
    void write(Capability target, long offset, MemorySegment src, long srcOffset, int length, Completion completion);

    /** Delivers up to {@code limit} completions; returns how many were delivered. */
    int poll(int limit);

    /** Operations issued and not yet delivered. */
    int outstanding();

    /** Per-port accounting, summed into {@link Fabric#stats()}. */
    FabricCounters counters();

    @Override
    void close();
}
