package io.farm.core.fabric;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A port of a fabric whose "NIC" is the issuing thread itself (local, shm): the copy is done
 * at issue time with {@link DmaEmulation}'s guarantees, without any CPU of the target, and the
 * completion is queued for the next {@link #poll(int)} of the same thread, so continuations
 * never run re-entrantly inside {@code read}/{@code write}.
 */
public abstract class EmulatedPort implements FabricPort {
    private final CompletionQueue completions = new CompletionQueue();
    private final FabricCounters counters;
    private final Thread owner = Thread.currentThread();
    private boolean closed;

    protected EmulatedPort(FabricCounters counters) {
        this.counters = counters;
    }

    /**
     * The target's registered memory for {@code target}: exactly {@code target.size()} bytes.
     *
     * @throws InvalidCapabilityException  if the key does not match the current registration
     * @throws UnregisteredRegionException if the region is not registered at the target
     * @throws PeerUnreachableException    if the target node is unreachable
     */
    protected abstract MemorySegment resolve(Capability target);

    @Override
    public final void read(Capability target, long offset, int length, MemorySegment dst, long dstOffset, Completion completion) {
        MemorySegment memory;
        try {
            memory = checkedTarget(target, offset, length, dst, dstOffset, completion, "read");
        } catch (PeerUnreachableException e) {
            // A broken connection fails the operation through its completion; nothing was accessed.
            completions.add(completion, e);
            return;
        }
        DmaEmulation.lineConsistentRead(memory, offset, dst, dstOffset, length);
        counters.recordRead(length);
        completions.add(completion, null);
    }

    @Override
    public final void write(Capability target, long offset, MemorySegment src, long srcOffset, int length, Completion completion) {
        MemorySegment memory;
        try {
            memory = checkedTarget(target, offset, length, src, srcOffset, completion, "write");
        } catch (PeerUnreachableException e) {
            // A broken connection fails the operation through its completion; nothing was accessed.
            completions.add(completion, e);
            return;
        }
        DmaEmulation.orderedWrite(src, srcOffset, memory, offset, length);
        counters.recordWrite(length);
        completions.add(completion, null);
    }

    @Override
    public final int poll(int limit) {
        requireOwner();
        return completions.deliver(limit);
    }

    @Override
    public final int outstanding() {
        requireOwner();
        return completions.size();
    }

    @Override
    public final FabricCounters counters() {
        return counters;
    }

    @Override
    public void close() {
        closed = true;
    }

    /** Checks everything about an operation and returns the target memory; throws PeerUnreachableException last. */
    private MemorySegment checkedTarget(Capability target, long offset, int length, MemorySegment local, long localOffset,
                                        Completion completion, String op) {
        requireOwner();
        if (closed) {
            throw new IllegalStateException("fabric port is closed");
        }
        if (target == null) {
            throw new InvalidCapabilityException(op + " without a capability");
        }
        Objects.requireNonNull(local, () -> op + " without a local buffer");
        Objects.requireNonNull(completion, () -> op + " without a completion");
        if (length < 0 || offset < 0 || offset > target.size() - length) {
            throw new OutOfRangeException(op + " of " + length + " bytes at offset " + offset + " is outside "
                + target + " (accepted: 0 <= offset, offset + length <= " + target.size() + ")");
        }
        if (localOffset < 0 || localOffset > local.byteSize() - length) {
            throw new OutOfRangeException(op + " of " + length + " bytes at local offset " + localOffset
                + " is outside the local buffer of " + local.byteSize() + " bytes");
        }
        MemorySegment memory = resolve(target);
        if (memory.byteSize() != target.size()) {
            throw new InvalidCapabilityException(target + " does not match the registered size " + memory.byteSize());
        }
        return memory;
    }

    private void requireOwner() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("fabric port of thread " + owner.getName() + " used from thread "
                + Thread.currentThread().getName() + ": a port is confined to the worker that opened it");
        }
    }
}
