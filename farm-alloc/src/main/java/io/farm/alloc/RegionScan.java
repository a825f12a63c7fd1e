package io.farm.alloc;

import java.lang.foreign.MemorySegment;
import java.util.BitSet;

/**
 * What a region's memory says about its allocation state: the block table, and for every SLAB
 * block the slots whose allocated bit is set. The one reader of region memory for both the
 * rebuild ({@link BlockAllocator#adoptRegion}) and the audit ({@link AllocatorState#scan}).
 *
 * @param regionId the region
 * @param words    state word of each block
 * @param live     for each SLAB block, its live slots; null for other blocks
 */
record RegionScan(int regionId, long[] words, BitSet[] live) {

    /**
     * Reads {@code region}, checking that it was formatted with {@code layout} and that every
     * state word is one the allocators write.
     *
     * @throws IllegalArgumentException naming the first thing that is wrong
     */
    static RegionScan of(RegionLayout layout, AllocatorRegion region) {
        int regionId = region.regionId();
        MemorySegment memory = region.memory();
        layout.checkRegionMemory(regionId, memory);
        String name = "region 0x" + Integer.toHexString(regionId);
        if (!RegionLayout.isFormatted(memory)) {
            throw new IllegalArgumentException(name + " has no block table: it was never formatted by a block"
                + " allocator (a new region is added with addRegion)");
        }
        int blockCount = layout.blockCount(memory.byteSize());
        if (RegionLayout.recordedBlockSize(memory) != layout.blockSize()
            || RegionLayout.recordedBlockCount(memory) != blockCount) {
            throw new IllegalArgumentException(name + " was formatted with " + RegionLayout.recordedBlockCount(memory)
                + " blocks of " + RegionLayout.recordedBlockSize(memory) + " bytes; this allocator expects "
                + blockCount + " blocks of " + layout.blockSize() + " bytes");
        }
        long[] words = new long[blockCount];
        BitSet[] live = new BitSet[blockCount];
        for (int i = 0; i < blockCount; i++) {
            long word = RegionLayout.blockState(memory, i);
            boolean expected = i == 0 ? word == BlockState.TABLE_WORD
                : BlockState.isValid(word) && BlockState.kind(word) != BlockState.TABLE;
            if (!expected) {
                throw new IllegalArgumentException(name + " block " + i + " has state word 0x" + Long.toHexString(word)
                    + " (" + BlockState.toString(word) + "): block 0 must be TABLE, the others FREE, SLAB or RELEASED");
            }
            words[i] = word;
            if (BlockState.kind(word) == BlockState.SLAB) {
                live[i] = liveSlots(layout, memory, i, BlockState.sizeClass(word));
            }
        }
        return new RegionScan(regionId, words, live);
    }

    private static BitSet liveSlots(RegionLayout layout, MemorySegment memory, int block, int sizeClass) {
        int slots = layout.slotsPerBlock(sizeClass);
        long slotSize = SizeClasses.sizeOf(sizeClass);
        long base = layout.blockOffset(block);
        BitSet live = new BitSet(slots);
        for (int slot = 0; slot < slots; slot++) {
            if (ObjectHeader.isAllocated(ObjectHeader.incarnationWord(memory, base + slot * slotSize))) {
                live.set(slot);
            }
        }
        return live;
    }
}
