package io.farm.bench.alloc;

import io.farm.alloc.ReclamationEpochs;

/**
 * Reclamation epochs of a process whose only reader of allocator memory is the allocating thread
 * itself (the allocator benchmark): nothing else can hold a pointer into a freed block, so an
 * advance asked for is granted at once and every earlier epoch is safe.
 */
final class OneWorkerEpochs implements ReclamationEpochs {
    private long current = 1;
    private long advances;

    @Override
    public long current() {
        return current;
    }

    @Override
    public long safe() {
        return current - 1;
    }

    @Override
    public void requestAdvance() {
        current++;
        advances++;
    }

    /** Advances granted. */
    long advances() {
        return advances;
    }
}
