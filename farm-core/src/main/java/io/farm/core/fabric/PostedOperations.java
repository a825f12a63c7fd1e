package io.farm.core.fabric;

import java.lang.foreign.MemorySegment;

/**
 * The operations a port has posted and not yet performed, in order: the emulated NIC's send
 * queue. Not thread safe: confined to the port's thread. Arrays grow by doubling and are reused,
 * so posting allocates nothing in the steady state.
 */
final class PostedOperations {
    static final byte READ = 0;
    static final byte WRITE = 1;
    /** An operation that fails without touching memory (its target was unreachable when posted). */
    static final byte FAILED = 2;

    byte[] kinds = new byte[64];
    MemorySegment[] remotes = new MemorySegment[64];
    long[] remoteOffsets = new long[64];
    MemorySegment[] locals = new MemorySegment[64];
    long[] localOffsets = new long[64];
    int[] lengths = new int[64];
    Completion[] completions = new Completion[64];
    FabricException[] failures = new FabricException[64];
    private int head;
    private int size;

    /** Appends an operation. */
    void add(byte kind, MemorySegment remote, long remoteOffset, MemorySegment local, long localOffset, int length,
             Completion completion, FabricException failure) {
        if (size == kinds.length) {
            grow();
        }
        int i = (head + size) & (kinds.length - 1);
        kinds[i] = kind;
        remotes[i] = remote;
        remoteOffsets[i] = remoteOffset;
        locals[i] = local;
        localOffsets[i] = localOffset;
        lengths[i] = length;
        completions[i] = completion;
        failures[i] = failure;
        size++;
    }

    /** Number of posted operations. */
    int size() {
        return size;
    }

    /** Array index of the {@code n}-th oldest operation. */
    int index(int n) {
        return (head + n) & (kinds.length - 1);
    }

    /** Removes the oldest operation, clearing its references. */
    void removeFirst() {
        remotes[head] = null;
        locals[head] = null;
        completions[head] = null;
        failures[head] = null;
        head = (head + 1) & (kinds.length - 1);
        size--;
    }

    private void grow() {
        int capacity = kinds.length;
        int grown = capacity * 2;
        byte[] k = new byte[grown];
        MemorySegment[] r = new MemorySegment[grown];
        long[] ro = new long[grown];
        MemorySegment[] l = new MemorySegment[grown];
        long[] lo = new long[grown];
        int[] len = new int[grown];
        Completion[] c = new Completion[grown];
        FabricException[] f = new FabricException[grown];
        for (int n = 0; n < size; n++) {
            int i = (head + n) & (capacity - 1);
            k[n] = kinds[i];
            r[n] = remotes[i];
            ro[n] = remoteOffsets[i];
            l[n] = locals[i];
            lo[n] = localOffsets[i];
            len[n] = lengths[i];
            c[n] = completions[i];
            f[n] = failures[i];
        }
        kinds = k;
        remotes = r;
        remoteOffsets = ro;
        locals = l;
        localOffsets = lo;
        lengths = len;
        completions = c;
        failures = f;
        head = 0;
    }
}
