package io.farm.alloc;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The slab allocator of one worker thread (FaRM NSDI'14 §3.3, DESIGN §8): allocates objects of
 * the 256 {@link SizeClasses} from blocks it takes from the node's {@link BlockAllocator}, each
 * block one size class. It takes no lock on its fast path and must be used by one thread only,
 * its worker; the objects that worker frees through it may belong to any slab of the node (see
 * Free below).
 *
 * <h2>Never blocking a worker</h2>
 * {@link #tryAllocate} is synchronous, and on its fast path (a block of the class with a free
 * slot) it allocates nothing on the heap: it returns the new object's address, or
 * {@link ObjectAddress#NULL} when no region of the node has room for the object. Only then does the caller use {@link #allocate}, which asks the
 * {@link RegionSource} for a new region and completes when the object is allocated in it (or
 * elsewhere, if room appeared meanwhile). Taking a block from the block allocator is
 * synchronous: a short lock, no I/O.
 *
 * <h2>Where an object goes</h2>
 * With a location hint (the address of an existing object, {@link ObjectAddress#NULL} for
 * none), in this order:
 * <ol>
 *   <li>the hint's block, if this slab allocates from it, for the object's class, and it has a
 *       free slot;</li>
 *   <li>the hint's region: a block of this slab and class there with a free slot, else a block
 *       of that region from the block allocator;</li>
 *   <li>anywhere: the current block of the class (the most recently taken one with room), any
 *       other block of this slab and class with room, a block of any region;</li>
 *   <li>otherwise {@link #tryAllocate} returns {@link ObjectAddress#NULL}, and {@link #allocate}
 *       asks for a new region placed near the hint's region and prefers it.</li>
 * </ol>
 * Within a block, the most recently freed slot is reused first, then slots never used.
 * Allocation sets the allocated bit of the object's header with release ({@link ObjectHeader}).
 *
 * <h2>Free</h2>
 * {@link #free} checks the address, then clears the allocated bit and increments the
 * incarnation with one compare-and-set. The slot can be reused at once by the same class (type
 * stability: its header stays valid). Any worker may free any object of the node: if the
 * object's block belongs to another slab, the slot is handed to that slab through a lock-free
 * queue, which it empties on its next allocation or free (so the slot freed last, as this slab
 * sees frees, is the one reused first). A block whose objects are all free goes back
 * to the block allocator (unless it is the block the class allocates from), which lets another
 * class have it only under the epoch rule ({@link BlockAllocator}).
 *
 * <h2>Bad input</h2>
 * A size outside 1 .. {@value SizeClasses#MAX_SIZE}, a hint or address outside the node's
 * regions, an address that is not an object of a block of objects, and an object that is not
 * allocated are refused with an exception naming what was wrong and what is accepted, before
 * anything changes.
 */
public final class SlabAllocator {
    private static final VarHandle ALLOCATIONS;
    private static final VarHandle FREES;
    private static final String HINT = "location hint";
    private static final String HINT_REMEDY =
        "a hint in another node's region is served by that node (farm-core sends the allocation there)";
    private static final String FREED = "address to free";
    private static final String FREED_REMEDY = "an object is freed by the node whose region holds it";

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            ALLOCATIONS = lookup.findVarHandle(SlabAllocator.class, "allocations", long.class);
            FREES = lookup.findVarHandle(SlabAllocator.class, "frees", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final BlockAllocator blocks;
    private final RegionLayout layout;
    private final int slabId;
    /** Per size class, this slab's blocks that may have a free slot; the first is the current one. */
    private final ClassBlocks[] classes = new ClassBlocks[SizeClasses.COUNT];
    /** Objects of this slab's blocks freed by other threads, waiting to be taken in. */
    private final ConcurrentLinkedQueue<Long> handedOver = new ConcurrentLinkedQueue<>();
    /** Written by the owner thread only (opaque), read by any ({@link #allocations()}). */
    private long allocations;
    /** Written by the owner thread only (opaque), read by any ({@link #frees()}). */
    private long frees;

    /**
     * A slab allocator for one worker thread, registered with {@code blocks} under {@code slabId}
     * (recorded in the state word of every block it takes). It adopts the rebuilt blocks whose
     * state word names {@code slabId} ({@link BlockAllocator#adoptRegion}).
     *
     * @param slabId 0 .. {@value BlockState#MAX_OWNER}, unique per block allocator (the worker's index)
     * @throws IllegalArgumentException if {@code slabId} is out of range
     * @throws IllegalStateException    if a slab allocator with that id is registered already
     */
    public SlabAllocator(BlockAllocator blocks, int slabId) {
        if (slabId < 0 || slabId > BlockState.MAX_OWNER) {
            throw new IllegalArgumentException("slab allocator id " + slabId + " out of range: 0.." + BlockState.MAX_OWNER);
        }
        this.blocks = Objects.requireNonNull(blocks, "blocks");
        this.layout = blocks.layout();
        this.slabId = slabId;
        for (Block block : blocks.register(this)) {
            if (block.hasRoom()) {
                classBlocks(block.sizeClass()).addLast(block);
            }
        }
    }

    /** This slab allocator's id, as block state words record it. */
    public int slabId() {
        return slabId;
    }

    /**
     * Allocates an object of {@code size} bytes near {@code hintAddress} without waiting; in the
     * common case (a block of the class with a free slot) it allocates nothing on the heap.
     *
     * @param size        object size in bytes, 1 .. {@value SizeClasses#MAX_SIZE} (1 MiB)
     * @param hintAddress address of an object to allocate near, or {@link ObjectAddress#NULL}
     * @return the new object's address, or {@link ObjectAddress#NULL} if a new region is needed:
     *         then call {@link #allocate}
     * @throws IllegalArgumentException if {@code size} is out of range, or the hint is not in one of
     *                                  this node's regions; nothing changes then
     */
    public long tryAllocate(int size, long hintAddress) {
        int sizeClass = SizeClasses.classOf(size);
        RegionBlocks hintRegion = hintAddress == ObjectAddress.NULL ? null : blocks.regionOf(hintAddress, HINT, HINT_REMEDY);
        takeInHandedOverFrees();
        return place(sizeClass, hintRegion, hintAddress, null);
    }

    /**
     * Allocates an object of {@code size} bytes near {@code hintAddress}, asking the
     * {@link RegionSource} for a new region (placed near the hint's region) if no region has room.
     * The stage completes on the thread that completes the region source's stage, which is this
     * worker (the {@link RegionSource} contract); it fails if the region source fails.
     *
     * @param size        object size in bytes, 1 .. {@value SizeClasses#MAX_SIZE} (1 MiB)
     * @param hintAddress address of an object to allocate near, or {@link ObjectAddress#NULL}
     * @return the new object's address
     * @throws IllegalArgumentException as {@link #tryAllocate} does, at once
     */
    public CompletionStage<Long> allocate(int size, long hintAddress) {
        long address = tryAllocate(size, hintAddress);
        if (address != ObjectAddress.NULL) {
            return CompletableFuture.completedFuture(address);
        }
        RegionBlocks hintRegion = hintAddress == ObjectAddress.NULL ? null : blocks.regionOf(hintAddress, HINT, HINT_REMEDY);
        return allocateInNewRegion(SizeClasses.classOf(size), hintRegion, hintAddress);
    }

    private CompletionStage<Long> allocateInNewRegion(int sizeClass, RegionBlocks hintRegion, long hintAddress) {
        int hintRegionId = hintRegion == null ? RegionSource.NO_HINT : hintRegion.regionId;
        return blocks.requestRegion(hintRegionId).thenCompose(region -> {
            takeInHandedOverFrees();
            long address = place(sizeClass, hintRegion, hintAddress, blocks.region(region.regionId()));
            return address != ObjectAddress.NULL
                ? CompletableFuture.completedFuture(address)
                : allocateInNewRegion(sizeClass, hintRegion, hintAddress);
        });
    }

    /**
     * Frees the object at {@code address}: clears its allocated bit and increments its
     * incarnation (one compare-and-set), and makes its slot available to its class again. The
     * object may belong to any slab of the node (a worker frees through its own slab allocator);
     * a slot of another slab's block is handed to that slab.
     *
     * @throws IllegalArgumentException if the address is not in one of this node's regions, or not
     *                                  the start of an object of a block of objects
     * @throws IllegalStateException    if the object is not allocated (freed already, or never
     *                                  allocated), or another thread freed it at the same moment;
     *                                  nothing changes in either case
     */
    public void free(long address) {
        RegionBlocks region = blocks.regionOf(address, FREED, FREED_REMEDY);
        int offset = ObjectAddress.offset(address);
        int index = layout.blockIndex(offset);
        if (index == 0 || index >= region.blocks.length) {
            throw new IllegalArgumentException(FREED + " " + ObjectAddress.toString(address) + " is in "
                + (index == 0 ? "block 0, the region's block table" : "the region's tail past its last block")
                + ": objects live in blocks 1.." + (region.blocks.length - 1) + " of " + layout.blockSize() + " bytes");
        }
        Block block = region.blocks[index];
        long state = block.state;
        if (BlockState.kind(state) != BlockState.SLAB) {
            throw new IllegalArgumentException(FREED + " " + ObjectAddress.toString(address) + " is in block " + index
                + ", which holds no objects (" + BlockState.toString(state) + ")");
        }
        int sizeClass = BlockState.sizeClass(state);
        int size = SizeClasses.sizeOf(sizeClass);
        int within = offset - block.offset;
        int slots = layout.slotsPerBlock(sizeClass);
        if (within % size != 0 || within / size >= slots) {
            throw new IllegalArgumentException(FREED + " " + ObjectAddress.toString(address)
                + " is not on an object boundary: block " + index + " holds objects of size class " + sizeClass + " ("
                + size + " bytes) at block offsets k * " + size + ", k in 0.." + (slots - 1) + "; this is offset " + within);
        }
        MemorySegment memory = region.memory;
        // Acquire: the allocation's release store of this word is visible, whichever thread allocated.
        long word = ObjectHeader.incarnationWord(memory, offset);
        if (!ObjectHeader.isAllocated(word)) {
            throw new IllegalStateException("object at " + ObjectAddress.toString(address) + " is not allocated (incarnation "
                + ObjectHeader.incarnation(word) + "): it was freed already, or never allocated");
        }
        // One compare-and-set from the allocated word: of two racing frees exactly one succeeds.
        if (!ObjectHeader.markFree(memory, offset, word)) {
            throw new IllegalStateException("object at " + ObjectAddress.toString(address)
                + " was freed by another thread at the same time: an object is freed once");
        }
        FREES.setOpaque(this, frees + 1);
        // A slab's block cannot change hands now: its slab counts this slot live until it takes the
        // free in. A rebuilt block no slab holds may be adopted meanwhile: freeInHeldBlock checks.
        SlabAllocator owner = block.owner;
        int slot = within / size;
        if (owner == this) {
            takeInHandedOverFrees();
            slotFreed(block, slot);
        } else if (owner != null) {
            owner.handOverFree(address);
        } else {
            blocks.freeInHeldBlock(block, slot, address);
        }
    }

    /** Objects this slab allocated (any thread may read it). */
    public long allocations() {
        return (long) ALLOCATIONS.getOpaque(this);
    }

    /** Objects freed through this slab allocator, in its blocks or others' (any thread may read it). */
    public long frees() {
        return (long) FREES.getOpaque(this);
    }

    /** Hands a slot of one of this slab's blocks, freed by another thread, to this slab. */
    void handOverFree(long address) {
        handedOver.offer(address);
    }

    /** Frees handed over and not yet taken in (for {@link BlockAllocator#state()}). */
    Iterable<Long> handedOverFrees() {
        return handedOver;
    }

    private void takeInHandedOverFrees() {
        Long address;
        while ((address = handedOver.poll()) != null) {
            Block block = blocks.blockOf(address);
            slotFreed(block, block.slotAt(ObjectAddress.offset(address)));
        }
    }

    /**
     * Allocates an object of {@code sizeClass} in the order of the class comment: the hint's block,
     * the hint's region, {@code newRegion} (a region just obtained for this allocation), anywhere.
     * Returns {@link ObjectAddress#NULL} if no region has room.
     */
    private long place(int sizeClass, RegionBlocks hintRegion, long hintAddress, RegionBlocks newRegion) {
        if (hintRegion != null) {
            int index = layout.blockIndex(ObjectAddress.offset(hintAddress));
            if (index >= 1 && index < hintRegion.blocks.length) {
                Block hinted = hintRegion.blocks[index];
                if (hinted.owner == this && hinted.sizeClass() == sizeClass && hinted.hasRoom()) {
                    return allocateFrom(hinted);
                }
            }
            long address = allocateInRegion(sizeClass, hintRegion);
            if (address != ObjectAddress.NULL) {
                return address;
            }
        }
        if (newRegion != null && newRegion != hintRegion) {
            long address = allocateInRegion(sizeClass, newRegion);
            if (address != ObjectAddress.NULL) {
                return address;
            }
        }
        ClassBlocks classBlocks = classBlocks(sizeClass);
        Block block = classBlocks.current();
        if (block == null) {
            block = blocks.takeBlock(this, sizeClass, null, false);
            if (block == null) {
                return ObjectAddress.NULL;
            }
            classBlocks.addFirst(block);
        }
        return allocateFrom(block);
    }

    private long allocateInRegion(int sizeClass, RegionBlocks region) {
        ClassBlocks classBlocks = classBlocks(sizeClass);
        Block block = classBlocks.withRoomIn(region);
        if (block == null) {
            block = blocks.takeBlock(this, sizeClass, region, true);
            if (block == null) {
                return ObjectAddress.NULL;
            }
            classBlocks.addLast(block);
        }
        return allocateFrom(block);
    }

    private long allocateFrom(Block block) {
        int slot = block.takeSlot();
        int offset = block.slotOffset(slot);
        MemorySegment memory = block.region.memory;
        long word = ObjectHeader.incarnationWord(memory, offset);
        if (ObjectHeader.isAllocated(word)) {
            throw new IllegalStateException("slot at " + ObjectAddress.toString(ObjectAddress.of(block.region.regionId, offset))
                + " is free for slab allocator " + slabId + " but its header says allocated: the region's memory was"
                + " changed outside the allocators; the slot is left out");
        }
        ObjectHeader.markAllocated(memory, offset, word);
        ALLOCATIONS.setOpaque(this, allocations + 1);
        return ObjectAddress.of(block.region.regionId, offset);
    }

    /** A slot of this slab's {@code block} was freed (its header is already marked free). */
    private void slotFreed(Block block, int slot) {
        block.putSlot(slot);
        ClassBlocks classBlocks = classBlocks(block.sizeClass());
        if (block.isEmpty() && classBlocks.current() != block) {
            classBlocks.remove(block);
            blocks.release(block);
        } else if (!block.inRoomList) {
            classBlocks.addLast(block);
        }
    }

    private ClassBlocks classBlocks(int sizeClass) {
        ClassBlocks classBlocks = classes[sizeClass];
        if (classBlocks == null) {
            classBlocks = new ClassBlocks();
            classes[sizeClass] = classBlocks;
        }
        return classBlocks;
    }

    /**
     * The blocks of one class that may have a free slot (each block at most once, marked by
     * {@link Block#inRoomList}); full blocks leave the list when they reach its head.
     */
    private static final class ClassBlocks {
        private final ArrayDeque<Block> withRoom = new ArrayDeque<>();

        /** The block the class allocates from: the first with a free slot, or null. */
        Block current() {
            Block block;
            while ((block = withRoom.peekFirst()) != null && !block.hasRoom()) {
                withRoom.pollFirst();
                block.inRoomList = false;
            }
            return block;
        }

        /** A block of {@code region} with a free slot, or null. */
        Block withRoomIn(RegionBlocks region) {
            for (Block block : withRoom) {
                if (block.region == region && block.hasRoom()) {
                    return block;
                }
            }
            return null;
        }

        void addFirst(Block block) {
            withRoom.addFirst(block);
            block.inRoomList = true;
        }

        void addLast(Block block) {
            withRoom.addLast(block);
            block.inRoomList = true;
        }

        void remove(Block block) {
            if (block.inRoomList) {
                withRoom.remove(block);
                block.inRoomList = false;
            }
        }
    }
}
