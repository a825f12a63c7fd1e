package io.farm.alloc;

import java.lang.foreign.MemorySegment;

/**
 * One region of a block allocator: its memory and its blocks ({@code blocks[0]} is the table
 * block). The counts are the block allocator's, kept under its lock, so that it skips regions
 * without a block to give.
 */
final class RegionBlocks {
    final int regionId;
    final MemorySegment memory;
    final Block[] blocks;

    /** FREE blocks. */
    int unused;
    /** RELEASED blocks. */
    int released;
    /** SLAB blocks with no slab allocator (rebuilt, not adopted yet). */
    int held;

    RegionBlocks(int regionId, MemorySegment memory, int blockCount) {
        this.regionId = regionId;
        this.memory = memory;
        this.blocks = new Block[blockCount];
    }

    /** Whether the block allocator may find a block to give here. */
    boolean mayHaveBlocks() {
        return unused + released + held > 0;
    }
}
