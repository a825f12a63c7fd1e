package io.farm.alloc;

import java.util.ArrayList;
import java.util.List;

/**
 * One node's allocators for tests: a block allocator over {@link TestRegions} (4 MiB regions,
 * 1 MiB blocks: 3 blocks of objects each) and {@link TestEpochs}, and slab allocators 0 .. n-1.
 */
final class TestNode implements AutoCloseable {
    static final int MIB = 1 << 20;

    final TestRegions regions;
    final TestEpochs epochs = new TestEpochs();
    final RegionLayout layout = new RegionLayout(MIB);
    final int lowFreeBlocks;
    BlockAllocator blocks;
    final List<SlabAllocator> slabs = new ArrayList<>();

    TestNode(int slabCount, int lowFreeBlocks) {
        this(new TestRegions(), slabCount, lowFreeBlocks);
    }

    TestNode(TestRegions regions, int slabCount, int lowFreeBlocks) {
        this.regions = regions;
        this.lowFreeBlocks = lowFreeBlocks;
        this.blocks = new BlockAllocator(layout, regions, epochs, lowFreeBlocks);
        for (int i = 0; i < slabCount; i++) {
            slabs.add(new SlabAllocator(blocks, i));
        }
    }

    SlabAllocator slab(int i) {
        return slabs.get(i);
    }

    /** Allocates with {@link SlabAllocator#allocate}, which completes at once with the test region source. */
    long allocate(int slab, int size, long hint) {
        return slabs.get(slab).allocate(size, hint).toCompletableFuture().join();
    }

    long allocate(int size) {
        return allocate(0, size, ObjectAddress.NULL);
    }

    /** What the regions' memory says. */
    AllocatorState scan() {
        return AllocatorState.scan(layout, blocks.regions());
    }

    /**
     * Simulates a failure and recovery: a new block allocator adopts every region from its memory
     * alone, and new slab allocators with the same ids register with it.
     */
    void rebuild() {
        List<AllocatorRegion> memory = blocks.regions();
        int slabCount = slabs.size();
        blocks = new BlockAllocator(layout, regions, epochs, lowFreeBlocks);
        for (AllocatorRegion region : memory) {
            blocks.adoptRegion(region);
        }
        slabs.clear();
        for (int i = 0; i < slabCount; i++) {
            slabs.add(new SlabAllocator(blocks, i));
        }
    }

    @Override
    public void close() {
        regions.close();
    }
}
