package io.farm.alloc;

/**
 * Counts of one node's allocators at one moment ({@link BlockAllocator#stats()}), for
 * benchmarks and monitoring. Each figure is read without stopping the allocators, so a
 * snapshot taken while they run mixes slightly different moments.
 *
 * @param allocations        objects allocated by the node's slab allocators since they started
 * @param frees              objects freed through the node's slab allocators since they started
 * @param regions            regions the block allocator holds
 * @param blocksInUse        blocks holding objects (SLAB), of every slab
 * @param freeBlocks         blocks any size class can take now: never used, or released in an
 *                           epoch that is safe
 * @param blocksAwaitingEpoch released blocks that only their old size class can take until the
 *                           safe epoch passes their release epoch
 * @param regionRequests     new regions asked of the region source
 */
public record AllocatorStats(long allocations, long frees, int regions, int blocksInUse, int freeBlocks,
                             int blocksAwaitingEpoch, long regionRequests) {
}
