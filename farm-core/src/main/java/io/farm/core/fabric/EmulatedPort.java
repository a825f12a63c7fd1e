package io.farm.core.fabric;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A port of a fabric whose "NIC" is the issuing thread itself (local, shm). {@code read} and
 * {@code write} check their arguments and resolve the target at once (errors throw, nothing is
 * written), then post the operation; {@link #poll(int)} performs posted operations in order with
 * {@link DmaEmulation}'s guarantees, without any CPU of the target, and then runs each one's
 * completion. So continuations never run re-entrantly inside {@code read}/{@code write}, and an
 * operation is only known to have happened once its completion ran, as with a real NIC.
 * A batch of posted reads starts by touching each source, so that their misses overlap.
 */
public abstract class EmulatedPort implements FabricPort {
    private final PostedOperations posted = new PostedOperations();
    private final FabricCounters counters;
    /** Where {@link #touchReadSources} leaves its loads; never read. */
    @SuppressWarnings("unused")
    private int touched;
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
        post(PostedOperations.READ, target, offset, dst, dstOffset, length, completion, "read");
    }

    @Override
    public final void write(Capability target, long offset, MemorySegment src, long srcOffset, int length, Completion completion) {
        post(PostedOperations.WRITE, target, offset, src, srcOffset, length, completion, "write");
    }

    private void post(byte kind, Capability target, long offset, MemorySegment local, long localOffset, int length,
                      Completion completion, String op) {
        MemorySegment memory;
        try {
            memory = checkedTarget(target, offset, length, local, localOffset, completion, op);
        } catch (PeerUnreachableException e) {
            // A broken connection fails the operation through its completion; nothing is accessed.
            posted.add(PostedOperations.FAILED, null, 0, null, 0, 0, completion, e);
            return;
        }
        posted.add(kind, memory, offset, local, localOffset, length, completion, null);
    }

    @Override
    public final int poll(int limit) {
        requireOwner();
        int count = Math.min(limit, posted.size());
        if (count == 0) {
            return 0;
        }
        touchReadSources(count);
        for (int n = 0; n < count; n++) {
            int i = posted.index(0);
            byte kind = posted.kinds[i];
            int length = posted.lengths[i];
            if (kind == PostedOperations.READ) {
                DmaEmulation.lineConsistentRead(posted.remotes[i], posted.remoteOffsets[i], posted.locals[i],
                    posted.localOffsets[i], length);
                counters.recordRead(length);
            } else if (kind == PostedOperations.WRITE) {
                DmaEmulation.orderedWrite(posted.locals[i], posted.localOffsets[i], posted.remotes[i],
                    posted.remoteOffsets[i], length);
                counters.recordWrite(length);
            }
            Completion completion = posted.completions[i];
            FabricException failure = posted.failures[i];
            posted.removeFirst();
            // Counted before it completes, so whoever learns of the completion sees the count.
            // The completion may post further operations: a later poll performs them.
            completion.complete(failure);
        }
        return count;
    }

    /**
     * Loads one byte of each of the next {@code count} posted reads' sources, one after the other,
     * so that their cache and TLB misses overlap, the way a NIC keeps many DMA reads in flight;
     * performed one at a time after other work, each read would wait for its own miss. The sum
     * goes to a field so that the compiler cannot drop the loads as unused.
     */
    private void touchReadSources(int count) {
        if (count < 2) {
            return;
        }
        int sum = 0;
        for (int n = 0; n < count; n++) {
            int i = posted.index(n);
            if (posted.kinds[i] == PostedOperations.READ && posted.lengths[i] > 0) {
                sum += posted.remotes[i].get(ValueLayout.JAVA_BYTE, posted.remoteOffsets[i]);
            }
        }
        touched = sum;
    }

    @Override
    public final int outstanding() {
        requireOwner();
        return posted.size();
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
        if (local == null || completion == null) {
            throw new NullPointerException(op + " without a " + (local == null ? "local buffer" : "completion"));
        }
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
