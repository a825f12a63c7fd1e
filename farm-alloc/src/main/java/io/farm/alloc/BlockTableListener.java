package io.farm.alloc;

import java.lang.foreign.MemorySegment;

/**
 * Told of every write a {@link BlockAllocator} makes to the allocation metadata in a region's
 * block 0 ({@link RegionLayout}): the header and the block table when a region is formatted,
 * then one state word ({@link BlockState}) whenever a block changes state; and of the whole of
 * a block it formats for another size class (its object headers moved, the backups' copies must
 * move too). farm-core copies these bytes to the region's backups, so that a backup's block 0
 * equals the primary's (FaRM NSDI'14 §3.3: "information about region and block allocations is
 * replicated at allocation time") and its object headers are the primary's before any object
 * of the new class is written. Replaying every reported write, in the order reported, onto a
 * zero copy of the region reproduces the primary's block 0 exactly, and each reformatted block
 * as it was formatted.
 *
 * <p>Called on the thread that caused the change (an allocating or freeing worker, or the one
 * that added the region), after the bytes are in the region's memory and while the block
 * allocator's lock is held, so calls are in the order of the writes. It must not call back into
 * the allocators, should be quick, and must not throw: the change has happened already.
 */
@FunctionalInterface
public interface BlockTableListener {
    /** Ignores every write: the table lives in the primary's memory only. */
    BlockTableListener NONE = (regionId, offset, bytes) -> {
    };

    /**
     * The allocator wrote {@code bytes} at {@code offset} of region {@code regionId}.
     *
     * @param regionId the region
     * @param offset   where in the region the bytes start (in its block 0, or a reformatted block's start)
     * @param bytes    the bytes now in the region's memory there (a view of it, 8-byte aligned,
     *                 a multiple of 8 bytes long); read them during the call, copy to keep them
     */
    void written(int regionId, int offset, MemorySegment bytes);
}
