package io.farm.alloc;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;

/**
 * The block allocator of one node (FaRM NSDI'14 §3.3, DESIGN §8): it owns the node's allocator
 * regions, keeps each block's state in the region's block table ({@link RegionLayout},
 * {@link BlockState}), and gives blocks to the node's {@link SlabAllocator}s, one size class
 * per block. It is thread safe: every change of a block's state happens under one lock. That is
 * the slow path; the slab allocators come here only for a new block or to give an empty one
 * back.
 *
 * <h2>Which block a slab gets</h2>
 * In the preferred region (the region of a location hint) first, then in the other regions in
 * the order they were added, the best block of a region is, for size class {@code c}:
 * <ol>
 *   <li>a rebuilt block of class {@code c} with a free slot that no slab has adopted yet;</li>
 *   <li>a RELEASED block of class {@code c}: its headers are valid for {@code c}, so it is
 *       reused at once (type stability, FaRM §3.5);</li>
 *   <li>a FREE block (zero since the region was new);</li>
 *   <li>a RELEASED block of another class whose release epoch {@link ReclamationEpochs#safe()}
 *       has reached: it is formatted for {@code c} first (below).</li>
 * </ol>
 * When no region has one, the slab asks for a new region ({@link #requestRegion}), passing the
 * hint's region id so that farm-core places it nearby.
 *
 * <h2>Reuse across size classes (the epoch rule)</h2>
 * A slab gives back a block whose objects are all free; it becomes RELEASED with the current
 * epoch ({@link ReclamationEpochs#current()}). Lock-free readers of that epoch may still read its
 * memory as class-{@code c} objects, so another class may take it only once
 * {@link ReclamationEpochs#safe()} is at least that epoch. When the blocks that any class could
 * take (FREE, or RELEASED in a safe epoch) fall below {@code lowFreeBlocks} while some released
 * blocks still wait for their epoch, the allocator asks the epochs to advance
 * ({@link ReclamationEpochs#requestAdvance()}), once per current epoch. Formatting a block for a
 * new class zeroes every new slot's version word and starts every new slot's incarnation at the
 * highest incarnation any slot of the old class reached, so a fat pointer to an object freed
 * there can never match the new object at its address ({@link ObjectHeader}).
 *
 * <h2>Rebuild</h2>
 * {@link #adoptRegion} rebuilds the state of a region from its memory after a failure (on the
 * restarted node, or on a backup that becomes primary): the block table gives each block's
 * state, and the allocated bits of a SLAB block's objects give its live and free slots. A
 * rebuilt block of objects goes back to the slab allocator whose id its state word names when
 * that slab registers, or, failing that, to the first slab that needs a block of its class. The
 * state afterwards equals the state before ({@link AllocatorState}).
 *
 * <h2>Replication</h2>
 * farm-alloc writes block 0 (header and table) into the region's memory and nowhere else; it
 * reports every such write to its {@link BlockTableListener} ({@link #blockTableListener}), which
 * farm-core uses to copy them to the region's backups (FaRM replicates block allocations at
 * allocation time).
 */
public final class BlockAllocator {
    private final RegionLayout layout;
    private final RegionSource source;
    private final ReclamationEpochs epochs;
    private final int lowFreeBlocks;

    private final ReentrantLock lock = new ReentrantLock();
    /** Every region by id, read without the lock by allocating and freeing threads. */
    private volatile RegionTable table = RegionTable.EMPTY;
    private final AtomicLong regionRequests = new AtomicLong();
    private volatile BlockTableListener listener = BlockTableListener.NONE;

    // Guarded by lock.
    private final List<RegionBlocks> regionsInOrder = new ArrayList<>();
    private final Map<Integer, SlabAllocator> slabs = new TreeMap<>();
    private final PriorityQueue<PendingRelease> pendingReleases =
        new PriorityQueue<>(Comparator.comparingLong(PendingRelease::epoch));
    private int unusedBlocks;
    private int releasedBlocks;
    private int reusableBlocks;
    private int slabBlocks;
    private long advanceRequestedIn = -1;

    /** A block released in {@code epoch}; stale once the block was taken again (its state says otherwise). */
    private record PendingRelease(Block block, long epoch) {
    }

    /**
     * A block allocator with no regions yet.
     *
     * @param layout        how regions are cut into blocks
     * @param source        where new regions come from
     * @param epochs        the reclamation epochs that gate reuse across size classes
     * @param lowFreeBlocks below this many blocks that any class can take, ask the epochs to advance
     * @throws IllegalArgumentException if {@code lowFreeBlocks} is negative
     */
    public BlockAllocator(RegionLayout layout, RegionSource source, ReclamationEpochs epochs, int lowFreeBlocks) {
        this.layout = Objects.requireNonNull(layout, "layout");
        this.source = Objects.requireNonNull(source, "source");
        this.epochs = Objects.requireNonNull(epochs, "epochs");
        if (lowFreeBlocks < 0) {
            throw new IllegalArgumentException("low free blocks threshold " + lowFreeBlocks + " is negative: 0 or more");
        }
        this.lowFreeBlocks = lowFreeBlocks;
    }

    /**
     * Reports every later write to block 0 of a region (header, table) to {@code listener},
     * instead of the previous listener ({@link BlockTableListener#NONE} at first). Set it before
     * the allocator is used: writes made before are not reported.
     */
    public void blockTableListener(BlockTableListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /** How this allocator cuts regions into blocks. */
    public RegionLayout layout() {
        return layout;
    }

    /**
     * Adds a new region: formats its block 0 ({@link RegionLayout}) and makes its other blocks
     * available. Regions asked of the {@link RegionSource} are added this way by the allocator itself.
     *
     * @throws IllegalArgumentException if the region id is 0 or known already, or the memory does
     *                                  not fit the layout or is not zero; nothing changes then
     */
    public void addRegion(AllocatorRegion region) {
        lock.lock();
        try {
            checkNewId(region.regionId());
            layout.checkRegionMemory(region.regionId(), region.memory());
            layout.format(region.regionId(), region.memory());
            listener.written(region.regionId(), 0, RegionLayout.formatted(region.memory()));
            RegionBlocks blocks = new RegionBlocks(region.regionId(), region.memory(),
                layout.blockCount(region.memory().byteSize()));
            blocks.blocks[0] = new Block(blocks, 0, 0, BlockState.TABLE_WORD);
            for (int i = 1; i < blocks.blocks.length; i++) {
                blocks.blocks[i] = new Block(blocks, i, layout.blockOffset(i), BlockState.FREE_WORD);
            }
            blocks.unused = blocks.blocks.length - 1;
            unusedBlocks += blocks.unused;
            publish(blocks);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Rebuilds a region's allocation state from its memory (after a failure, DESIGN §8): reads its
     * block table and the allocated bit of every object in its SLAB blocks. FREE and RELEASED
     * blocks become available again (RELEASED ones under the epoch rule, with the epoch recorded);
     * SLAB blocks keep their live objects and go back to their slab allocators (see the class
     * comment).
     *
     * @throws IllegalArgumentException if the region id is 0 or known already, or the memory was
     *                                  not formatted with this layout or holds a state word no
     *                                  allocator writes; nothing changes then
     */
    public void adoptRegion(AllocatorRegion region) {
        boolean advance;
        lock.lock();
        try {
            checkNewId(region.regionId());
            RegionScan scan = RegionScan.of(layout, region);
            RegionBlocks blocks = new RegionBlocks(region.regionId(), region.memory(), scan.words().length);
            for (int i = 0; i < blocks.blocks.length; i++) {
                long word = scan.words()[i];
                Block block = new Block(blocks, i, layout.blockOffset(i), word);
                blocks.blocks[i] = block;
                switch (BlockState.kind(word)) {
                    case BlockState.FREE -> blocks.unused++;
                    case BlockState.RELEASED -> {
                        blocks.released++;
                        pendingReleases.add(new PendingRelease(block, BlockState.epoch(word)));
                    }
                    case BlockState.SLAB -> {
                        block.restoreSlots(BlockState.sizeClass(word), layout.blockSize(), scan.live()[i]);
                        blocks.held++;
                    }
                    default -> {
                        // TABLE: block 0, the table itself
                    }
                }
            }
            unusedBlocks += blocks.unused;
            releasedBlocks += blocks.released;
            slabBlocks += blocks.held;
            publish(blocks);
            promoteSafeReleases();
            advance = shouldAdvance();
        } finally {
            lock.unlock();
        }
        if (advance) {
            epochs.requestAdvance();
        }
    }

    /** The regions this allocator holds, in the order they were added. */
    public List<AllocatorRegion> regions() {
        lock.lock();
        try {
            return regionsInOrder.stream().map(r -> new AllocatorRegion(r.regionId, r.memory)).toList();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The allocation state as this allocator and its slab allocators see it: block states from
     * the block allocator, free slots from the slabs (a free handed to a slab by another thread
     * and not yet taken in counts as free). Call it while no slab allocator runs (for instance
     * from the only thread that uses them): the slabs' own structures are read without their
     * threads' help.
     */
    public AllocatorState state() {
        lock.lock();
        try {
            Map<Block, BitSet> handedOver = new HashMap<>();
            for (SlabAllocator slab : slabs.values()) {
                for (long address : slab.handedOverFrees()) {
                    Block block = blockOf(address);
                    handedOver.computeIfAbsent(block, b -> new BitSet()).set(block.slotAt(ObjectAddress.offset(address)));
                }
            }
            TreeMap<Integer, List<AllocatorState.BlockSnapshot>> regions = new TreeMap<>();
            for (RegionBlocks region : regionsInOrder) {
                List<AllocatorState.BlockSnapshot> blocks = new ArrayList<>(region.blocks.length);
                for (Block block : region.blocks) {
                    blocks.add(snapshot(block, handedOver.get(block)));
                }
                regions.put(region.regionId, blocks);
            }
            return new AllocatorState(layout.blockSize(), regions);
        } finally {
            lock.unlock();
        }
    }

    private static AllocatorState.BlockSnapshot snapshot(Block block, BitSet handedOver) {
        long word = block.state;
        if (BlockState.kind(word) != BlockState.SLAB) {
            return new AllocatorState.BlockSnapshot(word, new BitSet(), 0);
        }
        BitSet free = new BitSet(block.slotCount());
        block.addFreeSlotsTo(free);
        int freeSlots = block.freeSlots();
        if (handedOver != null) {
            free.or(handedOver);
            freeSlots += handedOver.cardinality();
        }
        BitSet live = new BitSet(block.slotCount());
        live.set(0, block.slotCount());
        live.andNot(free);
        return new AllocatorState.BlockSnapshot(word, live, freeSlots);
    }

    /** Counts for benchmarks and monitoring (see {@link AllocatorStats}). */
    public AllocatorStats stats() {
        lock.lock();
        try {
            promoteSafeReleases();
            long allocations = 0;
            long frees = 0;
            for (SlabAllocator slab : slabs.values()) {
                allocations += slab.allocations();
                frees += slab.frees();
            }
            return new AllocatorStats(allocations, frees, regionsInOrder.size(), slabBlocks,
                unusedBlocks + reusableBlocks, releasedBlocks - reusableBlocks, regionRequests.get());
        } finally {
            lock.unlock();
        }
    }

    // ---- for the slab allocators ----

    /**
     * The region of {@code address}, checked: a known region and an offset inside it.
     *
     * @param role   what the address is, for the message ("location hint", "address to free")
     * @param remedy what to do with an address of another node's region
     */
    RegionBlocks regionOf(long address, String role, String remedy) {
        RegionTable regions = table;
        RegionBlocks region = regions.find(ObjectAddress.regionId(address));
        if (region == null) {
            throw new IllegalArgumentException(role + " " + ObjectAddress.toString(address) + " is in region 0x"
                + Integer.toHexString(ObjectAddress.regionId(address)) + ", which is not one of this node's "
                + regions.size() + " allocator regions " + regionIds(regions) + ": " + remedy);
        }
        int offset = ObjectAddress.offset(address);
        if (offset < 0 || offset >= region.memory.byteSize()) {
            throw new IllegalArgumentException(role + " " + ObjectAddress.toString(address) + " is outside its region: offsets of region 0x"
                + Integer.toHexString(region.regionId) + " are 0..0x" + Long.toHexString(region.memory.byteSize() - 1));
        }
        return region;
    }

    private static String regionIds(RegionTable regions) {
        RegionBlocks[] all = regions.regions();
        String ids = Arrays.stream(all).limit(8)
            .map(r -> "0x" + Integer.toHexString(r.regionId)).collect(Collectors.joining(", ", "[", ""));
        return ids + (all.length > 8 ? ", ...]" : "]");
    }

    /** The region with id {@code regionId}, or null. */
    RegionBlocks region(int regionId) {
        return table.find(regionId);
    }

    /** The block of an address this allocator handed out. */
    Block blockOf(long address) {
        return table.find(ObjectAddress.regionId(address)).blocks[layout.blockIndex(ObjectAddress.offset(address))];
    }

    /**
     * Registers a slab allocator under its id and gives it the rebuilt blocks that name it.
     *
     * @throws IllegalStateException if a slab allocator with that id is registered already
     */
    List<Block> register(SlabAllocator slab) {
        lock.lock();
        try {
            if (slabs.containsKey(slab.slabId())) {
                throw new IllegalStateException("slab allocator id " + slab.slabId() + " is registered already:"
                    + " one slab allocator per worker thread, each with its own id");
            }
            slabs.put(slab.slabId(), slab);
            List<Block> adopted = new ArrayList<>();
            for (RegionBlocks region : regionsInOrder) {
                for (int i = 1; i < region.blocks.length && region.held > 0; i++) {
                    Block block = region.blocks[i];
                    if (isHeld(block) && BlockState.owner(block.state) == slab.slabId()) {
                        block.owner = slab;
                        region.held--;
                        adopted.add(block);
                    }
                }
            }
            return adopted;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Gives {@code slab} a block for class {@code sizeClass}: in {@code preferred} if it has one,
     * else (unless {@code onlyPreferred}) in any region. Its state word becomes SLAB.
     *
     * @return the block, or null if there is none: a new region is needed
     */
    Block takeBlock(SlabAllocator slab, int sizeClass, RegionBlocks preferred, boolean onlyPreferred) {
        Block block = null;
        boolean advance;
        lock.lock();
        try {
            promoteSafeReleases();
            if (preferred != null) {
                block = bestBlock(preferred, sizeClass);
            }
            for (int i = 0; block == null && !onlyPreferred && i < regionsInOrder.size(); i++) {
                RegionBlocks region = regionsInOrder.get(i);
                if (region != preferred) {
                    block = bestBlock(region, sizeClass);
                }
            }
            if (block != null) {
                assign(block, slab, sizeClass);
            }
            advance = shouldAdvance();
        } finally {
            lock.unlock();
        }
        if (advance) {
            epochs.requestAdvance();
        }
        return block;
    }

    /**
     * The best block of {@code region} for {@code sizeClass}, in the order of the class comment:
     * the lowest rank wins, the first of equals.
     */
    private static Block bestBlock(RegionBlocks region, int sizeClass) {
        final int heldOfTheClass = 0;
        final int releasedByTheClass = 1;
        final int free = 2;
        final int releasedInASafeEpoch = 3;
        final int unavailable = Integer.MAX_VALUE;
        if (!region.mayHaveBlocks()) {
            return null;
        }
        Block best = null;
        int bestRank = unavailable;
        for (int i = 1; i < region.blocks.length && bestRank != heldOfTheClass; i++) {
            Block block = region.blocks[i];
            long word = block.state;
            int rank = switch (BlockState.kind(word)) {
                case BlockState.SLAB -> isHeld(block) && block.sizeClass() == sizeClass && block.hasRoom()
                    ? heldOfTheClass : unavailable;
                case BlockState.RELEASED -> BlockState.sizeClass(word) == sizeClass ? releasedByTheClass
                    : block.reusable ? releasedInASafeEpoch : unavailable;
                case BlockState.FREE -> free;
                default -> unavailable;
            };
            if (rank < bestRank) {
                best = block;
                bestRank = rank;
            }
        }
        return best;
    }

    private static boolean isHeld(Block block) {
        return BlockState.kind(block.state) == BlockState.SLAB && block.owner == null;
    }

    private void assign(Block block, SlabAllocator slab, int sizeClass) {
        RegionBlocks region = block.region;
        long word = block.state;
        switch (BlockState.kind(word)) {
            case BlockState.FREE -> {
                block.clearSlots(sizeClass, layout.blockSize());
                region.unused--;
                unusedBlocks--;
                slabBlocks++;
            }
            case BlockState.RELEASED -> {
                if (BlockState.sizeClass(word) != sizeClass) {
                    formatForClass(block, BlockState.sizeClass(word), sizeClass);
                }
                block.clearSlots(sizeClass, layout.blockSize());
                region.released--;
                releasedBlocks--;
                if (block.reusable) {
                    block.reusable = false;
                    reusableBlocks--;
                }
                slabBlocks++;
            }
            default -> region.held--;
        }
        setState(block, BlockState.slab(sizeClass, slab.slabId()));
        block.owner = slab;
    }

    /**
     * Formats a block that held class {@code oldClass} for {@code newClass}: version words zero,
     * incarnations from the highest the old slots reached (see the class comment).
     */
    private void formatForClass(Block block, int oldClass, int newClass) {
        MemorySegment memory = block.region.memory;
        long oldSize = SizeClasses.sizeOf(oldClass);
        long highest = 0;
        for (int slot = 0, slots = layout.slotsPerBlock(oldClass); slot < slots; slot++) {
            long word = ObjectHeader.incarnationWord(memory, block.offset + slot * oldSize);
            highest = Math.max(highest, ObjectHeader.incarnation(word));
        }
        long newSize = SizeClasses.sizeOf(newClass);
        for (int slot = 0, slots = layout.slotsPerBlock(newClass); slot < slots; slot++) {
            ObjectHeader.format(memory, block.offset + slot * newSize, highest);
        }
        // The backups' copies of the block still hold the old class's layout: they get the whole
        // formatted block, so that their headers are the primary's before any object is written.
        listener.written(block.region.regionId, Math.toIntExact(block.offset),
            memory.asSlice(block.offset, layout.blockSize()));
    }

    /** Takes back an empty block from its slab allocator: it becomes RELEASED in the current epoch. */
    void release(Block block) {
        boolean advance;
        lock.lock();
        try {
            releaseLocked(block);
            advance = shouldAdvance();
        } finally {
            lock.unlock();
        }
        if (advance) {
            epochs.requestAdvance();
        }
    }

    /**
     * Returns a freed slot of a block no slab has adopted (a rebuilt block), or hands it to the
     * slab that adopted the block meanwhile. The object's header is already marked free.
     */
    void freeInHeldBlock(Block block, int slot, long address) {
        boolean advance = false;
        lock.lock();
        try {
            SlabAllocator owner = block.owner;
            if (owner != null) {
                owner.handOverFree(address);
            } else {
                block.putSlot(slot);
                if (block.isEmpty()) {
                    block.region.held--;
                    releaseLocked(block);
                    advance = shouldAdvance();
                }
            }
        } finally {
            lock.unlock();
        }
        if (advance) {
            epochs.requestAdvance();
        }
    }

    private void releaseLocked(Block block) {
        long epoch = epochs.current();
        if (epoch < 0 || epoch > BlockState.MAX_EPOCH) {
            throw new IllegalStateException("current epoch " + epoch + " cannot be recorded in a block state word: epochs are 0.."
                + BlockState.MAX_EPOCH);
        }
        setState(block, BlockState.released(block.sizeClass(), epoch));
        block.owner = null;
        block.region.released++;
        releasedBlocks++;
        slabBlocks--;
        pendingReleases.add(new PendingRelease(block, epoch));
        promoteSafeReleases();
    }

    /** Marks the released blocks whose epoch has become safe reusable for any class. */
    private void promoteSafeReleases() {
        long safe = epochs.safe();
        PendingRelease next;
        while ((next = pendingReleases.peek()) != null && next.epoch() <= safe) {
            pendingReleases.poll();
            Block block = next.block();
            long word = block.state;
            if (BlockState.kind(word) == BlockState.RELEASED && BlockState.epoch(word) == next.epoch() && !block.reusable) {
                block.reusable = true;
                reusableBlocks++;
            }
        }
    }

    /** Whether to ask the epochs to advance now (at most once per current epoch). */
    private boolean shouldAdvance() {
        if (unusedBlocks + reusableBlocks >= lowFreeBlocks || releasedBlocks == reusableBlocks) {
            return false;
        }
        long current = epochs.current();
        if (current == advanceRequestedIn) {
            return false;
        }
        advanceRequestedIn = current;
        return true;
    }

    /**
     * Asks the region source for a new region near {@code hintRegionId} and adds it when it
     * arrives (on the thread that completes the source's stage: the calling worker).
     */
    CompletionStage<AllocatorRegion> requestRegion(int hintRegionId) {
        regionRequests.incrementAndGet();
        return source.newRegion(hintRegionId).thenApply(region -> {
            addRegion(region);
            return region;
        });
    }

    private void checkNewId(int regionId) {
        if (regionId == 0) {
            throw new IllegalArgumentException("region id 0 is reserved (address 0 is the null address): ids are nonzero");
        }
        if (table.find(regionId) != null) {
            throw new IllegalArgumentException("region 0x" + Integer.toHexString(regionId) + " is known already");
        }
    }

    private void publish(RegionBlocks region) {
        regionsInOrder.add(region);
        table = table.with(region);
    }

    private void setState(Block block, long word) {
        RegionLayout.setBlockState(block.region.memory, block.index, word);
        block.state = word;
        listener.written(block.region.regionId, RegionLayout.stateWordOffset(block.index),
            RegionLayout.stateWord(block.region.memory, block.index));
    }
}
