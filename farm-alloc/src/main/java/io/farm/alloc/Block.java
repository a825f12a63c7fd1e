package io.farm.alloc;

import java.util.Arrays;
import java.util.BitSet;

/**
 * The allocator's view of one block of a region. Two parts with two guardians:
 * <ul>
 *   <li>the block-table part ({@link #state}, {@link #owner}, {@link #reusable}) changes only
 *       under the {@link BlockAllocator}'s lock; {@code state} and {@code owner} are volatile
 *       because a free on any thread reads them to find the object's class and its slab;</li>
 *   <li>the slot part (which slots are free) belongs to the owning slab allocator's thread while
 *       {@code owner} is set, and to the block allocator's lock while it is null. Handing a block
 *       over always goes through that lock, which orders the two.</li>
 * </ul>
 * Free slots are a LIFO stack of freed slots plus every slot from {@code bump} on (never handed
 * out since the block took its class), so the most recently freed slot is reused first. The stack
 * grows with the frees (at most one int per slot), so a block that is mostly allocated costs
 * little heap.
 */
final class Block {
    /** Smallest capacity of the stack of freed slots once it holds one. */
    private static final int MIN_STACK = 16;

    final RegionBlocks region;
    final int index;
    /** Offset of the block in its region. */
    final int offset;

    /** Mirror of the block's state word in the table (BlockState). */
    volatile long state;
    /** The slab allocator handing out this block's slots; null unless state is SLAB and a slab adopted it. */
    volatile SlabAllocator owner;
    /** RELEASED and known to be past the safe epoch: reusable for any class. */
    boolean reusable;
    /** In its owner's list of blocks with room (owner's thread only). */
    boolean inRoomList;

    private int sizeClass;
    private int slotSize;
    private int slotCount;
    private int bump;
    private int[] freed = new int[0];
    private int freedCount;

    Block(RegionBlocks region, int index, int offset, long state) {
        this.region = region;
        this.index = index;
        this.offset = offset;
        this.state = state;
    }

    /** Makes every slot of class {@code sizeClass} free (the block's headers are valid free headers). */
    void clearSlots(int sizeClass, int blockSize) {
        this.sizeClass = sizeClass;
        this.slotSize = SizeClasses.sizeOf(sizeClass);
        this.slotCount = blockSize / slotSize;
        this.bump = 0;
        this.freedCount = 0;
    }

    /** Sets the free slots of class {@code sizeClass} to those not in {@code live}. */
    void restoreSlots(int sizeClass, int blockSize, BitSet live) {
        clearSlots(sizeClass, blockSize);
        bump = live.length();
        for (int slot = bump - 1; slot >= 0; slot--) {
            if (!live.get(slot)) {
                putSlot(slot);
            }
        }
    }

    int sizeClass() {
        return sizeClass;
    }

    int slotCount() {
        return slotCount;
    }

    /** Free slots: the freed ones plus those past the bump pointer. */
    int freeSlots() {
        return freedCount + slotCount - bump;
    }

    boolean hasRoom() {
        return freedCount > 0 || bump < slotCount;
    }

    /** No object lives in the block. */
    boolean isEmpty() {
        return freeSlots() == slotCount;
    }

    /** Takes a free slot (the most recently freed, else the next never used); the caller checked {@link #hasRoom()}. */
    int takeSlot() {
        return freedCount > 0 ? freed[--freedCount] : bump++;
    }

    /** Gives a freed slot back. */
    void putSlot(int slot) {
        if (freedCount == freed.length) {
            freed = Arrays.copyOf(freed, Math.min(slotCount, Math.max(MIN_STACK, 2 * freed.length)));
        }
        freed[freedCount++] = slot;
    }

    /** Offset in the region of slot {@code slot}. */
    int slotOffset(int slot) {
        return offset + slot * slotSize;
    }

    /** The slot at {@code regionOffset}, which lies in this block on a slot boundary. */
    int slotAt(int regionOffset) {
        return (regionOffset - offset) / slotSize;
    }

    /** Adds the free slots (freed and never used) to {@code free}. */
    void addFreeSlotsTo(BitSet free) {
        for (int i = 0; i < freedCount; i++) {
            free.set(freed[i]);
        }
        free.set(bump, slotCount);
    }
}
