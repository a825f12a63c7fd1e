package io.farm.core.fabric;

import java.util.Arrays;

/**
 * Completions waiting to be delivered on a port's own thread. Not thread safe: fabrics whose
 * operations complete on the issuing thread (local, shm) queue into it directly; fabrics with
 * a NIC thread hand completions over through a concurrent queue first.
 */
public final class CompletionQueue {
    private Completion[] completions = new Completion[64];
    private FabricException[] failures = new FabricException[64];
    private int head;
    private int size;

    /** Queues a completion with its outcome ({@code null} for success). */
    public void add(Completion completion, FabricException failure) {
        if (size == completions.length) {
            grow();
        }
        int index = (head + size) & (completions.length - 1);
        completions[index] = completion;
        failures[index] = failure;
        size++;
    }

    /** Delivers up to {@code limit} completions in order; returns how many were delivered. */
    public int deliver(int limit) {
        int delivered = 0;
        while (size > 0 && delivered < limit) {
            Completion completion = completions[head];
            FabricException failure = failures[head];
            completions[head] = null;
            failures[head] = null;
            head = (head + 1) & (completions.length - 1);
            size--;
            delivered++;
            completion.complete(failure);
        }
        return delivered;
    }

    /** Completions queued and not yet delivered. */
    public int size() {
        return size;
    }

    private void grow() {
        int capacity = completions.length;
        Completion[] c = new Completion[capacity * 2];
        FabricException[] f = new FabricException[capacity * 2];
        for (int i = 0; i < size; i++) {
            c[i] = completions[(head + i) & (capacity - 1)];
            f[i] = failures[(head + i) & (capacity - 1)];
        }
        completions = c;
        failures = f;
        head = 0;
        Arrays.fill(completions, size, completions.length, null);
    }
}
