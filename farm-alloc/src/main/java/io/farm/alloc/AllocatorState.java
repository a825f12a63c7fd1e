package io.farm.alloc;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The allocation state of a set of regions as a value: for every block of every region its
 * state word ({@link BlockState}), and for every block of objects which slots hold live objects
 * and how many are free. Two states are equal when they have the same block size and equal
 * blocks; that is the equality a rebuild must preserve (DESIGN §8): the live objects, the free
 * slots of every block and every block's state, owner and release epoch included.
 *
 * <p>It is obtained two ways, which must agree: from memory ({@link #scan}, what the block
 * tables and object headers say, which is what a replica holds) and from an allocator's own
 * structures ({@link BlockAllocator#state()}, what the allocators would hand out).
 *
 * @param blockSize the block size of the regions' layout
 * @param regions   the blocks of each region, by region id, block 0 first
 */
public record AllocatorState(int blockSize, SortedMap<Integer, List<BlockSnapshot>> regions) {

    /** Copies {@code regions}; the state is immutable. */
    public AllocatorState {
        TreeMap<Integer, List<BlockSnapshot>> copy = new TreeMap<>();
        regions.forEach((id, blocks) -> copy.put(id, List.copyOf(blocks)));
        regions = Collections.unmodifiableSortedMap(copy);
    }

    /**
     * One block.
     *
     * @param stateWord its state word
     * @param liveSlots for a SLAB block, the slots (0 = the block's first object) that hold live
     *                  objects; empty for other blocks
     * @param freeSlots for a SLAB block, the number of slots an allocation could take; 0 for
     *                  other blocks
     */
    public record BlockSnapshot(long stateWord, BitSet liveSlots, int freeSlots) {
        /** Copies {@code liveSlots}. */
        public BlockSnapshot {
            liveSlots = (BitSet) liveSlots.clone();
        }

        /** A copy of the live slots. */
        @Override
        public BitSet liveSlots() {
            return (BitSet) liveSlots.clone();
        }

        @Override
        public String toString() {
            return BlockState.kind(stateWord) == BlockState.SLAB
                ? BlockState.toString(stateWord) + " live " + liveSlots + " free " + freeSlots
                : BlockState.toString(stateWord);
        }
    }

    /**
     * The state that the memory of {@code regions} holds: their block tables and the allocated
     * bits of the objects in their SLAB blocks.
     *
     * @throws IllegalArgumentException if a region was not formatted with {@code layout}, or holds a
     *                                  state word no allocator writes
     */
    public static AllocatorState scan(RegionLayout layout, Collection<AllocatorRegion> regions) {
        TreeMap<Integer, List<BlockSnapshot>> scanned = new TreeMap<>();
        for (AllocatorRegion region : regions) {
            RegionScan scan = RegionScan.of(layout, region);
            List<BlockSnapshot> blocks = new ArrayList<>(scan.words().length);
            for (int i = 0; i < scan.words().length; i++) {
                long word = scan.words()[i];
                BitSet live = scan.live()[i];
                blocks.add(live == null
                    ? new BlockSnapshot(word, new BitSet(), 0)
                    : new BlockSnapshot(word, live, layout.slotsPerBlock(BlockState.sizeClass(word)) - live.cardinality()));
            }
            scanned.put(region.regionId(), blocks);
        }
        return new AllocatorState(layout.blockSize(), scanned);
    }

    /** The addresses ({@link ObjectAddress}) of all live objects, by region id, then offset. */
    public long[] liveObjects() {
        long[] addresses = new long[liveObjectCount()];
        int n = 0;
        for (Map.Entry<Integer, List<BlockSnapshot>> region : regions.entrySet()) {
            List<BlockSnapshot> blocks = region.getValue();
            for (int i = 0; i < blocks.size(); i++) {
                BlockSnapshot block = blocks.get(i);
                BitSet live = block.liveSlots;
                int slotSize = live.isEmpty() ? 0 : SizeClasses.sizeOf(BlockState.sizeClass(block.stateWord()));
                for (int slot = live.nextSetBit(0); slot >= 0; slot = live.nextSetBit(slot + 1)) {
                    addresses[n++] = ObjectAddress.of(region.getKey(), i * blockSize + slot * slotSize);
                }
            }
        }
        return addresses;
    }

    /** The number of live objects. */
    public int liveObjectCount() {
        int count = 0;
        for (List<BlockSnapshot> blocks : regions.values()) {
            for (BlockSnapshot block : blocks) {
                count += block.liveSlots.cardinality();
            }
        }
        return count;
    }

    /** The first difference between this state and {@code other}, described, or null if they are equal. */
    public String difference(AllocatorState other) {
        if (blockSize != other.blockSize) {
            return "block size " + blockSize + " vs " + other.blockSize;
        }
        if (!regions.keySet().equals(other.regions.keySet())) {
            return "regions " + hexIds(regions.keySet()) + " vs " + hexIds(other.regions.keySet());
        }
        for (Map.Entry<Integer, List<BlockSnapshot>> region : regions.entrySet()) {
            List<BlockSnapshot> mine = region.getValue();
            List<BlockSnapshot> theirs = other.regions.get(region.getKey());
            String name = "region 0x" + Integer.toHexString(region.getKey());
            if (mine.size() != theirs.size()) {
                return name + ": " + mine.size() + " blocks vs " + theirs.size();
            }
            for (int i = 0; i < mine.size(); i++) {
                if (!mine.get(i).equals(theirs.get(i))) {
                    return name + " block " + i + ": " + mine.get(i) + " vs " + theirs.get(i);
                }
            }
        }
        return null;
    }

    private static List<String> hexIds(Collection<Integer> ids) {
        return ids.stream().map(id -> "0x" + Integer.toHexString(id)).toList();
    }
}
