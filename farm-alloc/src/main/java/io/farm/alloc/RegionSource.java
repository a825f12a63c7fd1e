package io.farm.alloc;

import java.util.concurrent.CompletionStage;

/**
 * Where a node's block allocator gets new regions: defined here, implemented by farm-core, so
 * that farm-alloc depends on nothing of farm's (DESIGN §1, §8). farm-core maps the region,
 * registers it with the fabric, chooses a region id whose position on its virtual ring makes this
 * node the primary, and replicates the allocation to the backups (a message to each,
 * acknowledged) before it completes the stage: a region is never used before its backups know it.
 */
public interface RegionSource {
    /** No location hint: any ring, any position. */
    int NO_HINT = 0;

    /**
     * Allocates a new region for this node, placed near {@code hintRegionId} (the same virtual
     * ring, the nearest position that makes this node the primary) unless it is {@link #NO_HINT}.
     * Completes on the calling worker; never blocks it.
     */
    CompletionStage<AllocatorRegion> newRegion(int hintRegionId);
}
