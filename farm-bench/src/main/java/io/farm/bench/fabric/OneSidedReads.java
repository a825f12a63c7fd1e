package io.farm.bench.fabric;

import io.farm.core.fabric.Capability;
import io.farm.core.fabric.Completion;
import io.farm.core.fabric.FabricPort;

/** Random reads issued as one-sided fabric reads: no CPU of the target is involved. */
final class OneSidedReads extends ReadPipeline {
    private final FabricPort port;
    private final Capability target;
    private final Completion[] completions;

    OneSidedReads(FabricPort port, Capability target, int size, int depth, long durationNanos, long seed) {
        super(target.size(), size, depth, durationNanos, seed);
        this.port = port;
        this.target = target;
        this.completions = new Completion[depth];
        for (int i = 0; i < depth; i++) {
            int slot = i;
            completions[i] = failure -> completed(slot, failure);
        }
    }

    @Override
    protected void issue(int slot, long offset) {
        port.read(target, offset, size, buffers[slot], 0, completions[slot]);
    }
}
