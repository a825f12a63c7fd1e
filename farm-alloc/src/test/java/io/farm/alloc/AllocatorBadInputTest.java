package io.farm.alloc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static io.farm.alloc.TestNode.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every kind of bad input is refused with an exception that names what was wrong and what is
 * accepted, and changes nothing: neither the allocators' state nor the memory nor the counts.
 */
class AllocatorBadInputTest {
    private TestNode node;
    private final Arena arena = Arena.ofConfined();
    /** A live object of 100 B (class 128 B) of slab 0. */
    private long object;
    /** A 1 MiB object freed by slab 0: its block is RELEASED; region 2 has 2 FREE blocks. */
    private long released;

    @BeforeEach
    void someObjects() {
        node = new TestNode(2, 4);
        object = node.allocate(0, 100, ObjectAddress.NULL);
        node.allocate(0, 100, ObjectAddress.NULL);
        released = node.allocate(0, MIB, ObjectAddress.NULL);
        node.allocate(0, MIB, ObjectAddress.NULL);
        node.slab(0).free(released);
        assertEquals(2, ObjectAddress.regionId(node.allocate(1, 200, ObjectAddress.NULL)), "region 1 is full");
    }

    @AfterEach
    void close() {
        node.close();
        arena.close();
    }

    private <T extends Throwable> void assertRefusedWithoutChange(Class<T> type, Executable call, String... fragments) {
        AllocatorState state = node.blocks.state();
        AllocatorState memory = node.scan();
        AllocatorStats stats = node.blocks.stats();
        int requests = node.epochs.requests();
        List<Integer> hints = List.copyOf(node.regions.hints());
        T refusal = assertThrows(type, call);
        for (String fragment : fragments) {
            assertTrue(refusal.getMessage().contains(fragment), () -> "'" + fragment + "' not in: " + refusal.getMessage());
        }
        assertEquals(state, node.blocks.state());
        assertEquals(memory, node.scan());
        assertEquals(stats, node.blocks.stats());
        assertEquals(requests, node.epochs.requests());
        assertEquals(hints, node.regions.hints());
    }

    @Test
    void sizesOutsideOneByteTo1MiBAreRefusedWithTheLimitAndArraysForLargerData() {
        for (int size : new int[] {0, -1, MIB + 1, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
            assertRefusedWithoutChange(IllegalArgumentException.class,
                () -> node.slab(0).tryAllocate(size, ObjectAddress.NULL), "object size " + size, "1..1048576", "array of objects");
            assertRefusedWithoutChange(IllegalArgumentException.class,
                () -> node.slab(0).allocate(size, object), "1..1048576", "array of objects");
        }
    }

    @Test
    void freeingAnObjectTwiceIsRefused() {
        long other = node.slab(0).tryAllocate(100, ObjectAddress.NULL);
        node.slab(0).free(other);
        assertRefusedWithoutChange(IllegalStateException.class, () -> node.slab(0).free(other),
            "is not allocated (incarnation 1)", "freed already");
        assertRefusedWithoutChange(IllegalStateException.class, () -> node.slab(1).free(other), "is not allocated");
    }

    @Test
    void freeingASlotNeverAllocatedIsRefused() {
        assertRefusedWithoutChange(IllegalStateException.class, () -> node.slab(0).free(object + 128 * 5),
            "is not allocated (incarnation 0)", "never allocated");
    }

    @Test
    void addressesNotOnAnObjectBoundaryAreRefused() {
        for (long inside : new long[] {object + 64, object + 8, object + 1}) {
            assertRefusedWithoutChange(IllegalArgumentException.class, () -> node.slab(0).free(inside),
                "not on an object boundary", "size class " + SizeClasses.classOf(100) + " (128 bytes)", "k * 128");
        }
        long bigBlockObject = node.slab(0).tryAllocate(MIB / 2 + 64, ObjectAddress.NULL);
        int size = SizeClasses.sizeOf(SizeClasses.classOf(MIB / 2 + 64));
        assertEquals(1, MIB / size, "one object of this class per block");
        assertRefusedWithoutChange(IllegalArgumentException.class, () -> node.slab(0).free(bigBlockObject + size),
            "not on an object boundary", "k in 0..0");
    }

    @Test
    void addressesOutsideBlocksOfObjectsAreRefused() {
        assertRefusedWithoutChange(IllegalArgumentException.class, () -> node.slab(0).free(released),
            "holds no objects (RELEASED(class 255, epoch 1))");
        assertRefusedWithoutChange(IllegalArgumentException.class, () -> node.slab(0).free(ObjectAddress.of(2, 2 * MIB)),
            "holds no objects (FREE)");
        assertRefusedWithoutChange(IllegalArgumentException.class, () -> node.slab(0).free(ObjectAddress.of(1, 64)),
            "block 0, the region's block table", "blocks 1..3");
    }

    @Test
    void addressesOutsideTheNodesRegionsAreRefused() {
        assertRefusedWithoutChange(IllegalArgumentException.class, () -> node.slab(0).free(ObjectAddress.of(99, 64)),
            "region 0x63, which is not one of this node's 2 allocator regions [0x1, 0x2]",
            "freed by the node whose region holds it");
        assertRefusedWithoutChange(IllegalArgumentException.class, () -> node.slab(0).free(ObjectAddress.NULL),
            "address to free 0x0+0x0 is in region 0x0");
        assertRefusedWithoutChange(IllegalArgumentException.class, () -> node.slab(0).free(ObjectAddress.of(1, 4 * MIB)),
            "is outside its region", "0..0x3fffff");
        assertRefusedWithoutChange(IllegalArgumentException.class, () -> node.slab(0).free(1L << 32 | 0x8000_0040L),
            "is outside its region");
    }

    @Test
    void hintsOutsideTheNodesRegionsAreRefused() {
        long elsewhere = ObjectAddress.of(0x0500_0001, 64);
        assertRefusedWithoutChange(IllegalArgumentException.class, () -> node.slab(0).tryAllocate(64, elsewhere),
            "location hint 0x5000001+0x40", "not one of this node's", "served by that node");
        assertRefusedWithoutChange(IllegalArgumentException.class, () -> node.slab(0).allocate(64, elsewhere),
            "location hint");
        assertRefusedWithoutChange(IllegalArgumentException.class,
            () -> node.slab(1).tryAllocate(64, ObjectAddress.of(2, 4 * MIB + 64)), "is outside its region", "0..0x3fffff");
    }

    @Test
    void theTailPastTheLastBlockHoldsNoObjects() {
        try (TestRegions eightMiB = new TestRegions(8L * MIB)) {
            BlockAllocator blocks = new BlockAllocator(new RegionLayout(3 * MIB), eightMiB, node.epochs, 0);
            SlabAllocator slab = new SlabAllocator(blocks, 0);
            long first = slab.allocate(64, ObjectAddress.NULL).toCompletableFuture().join();
            assertEquals(3 * MIB, ObjectAddress.offset(first));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> slab.free(ObjectAddress.of(1, 6 * MIB + 64)));
            assertTrue(e.getMessage().contains("tail past its last block"), e.getMessage());
            assertEquals(ObjectAddress.NULL, slab.tryAllocate(MIB, ObjectAddress.of(1, 7 * MIB)),
                "a hint in the tail names its region, which is full for 1 MiB objects");
        }
    }

    @Test
    void regionsThatCannotBeAddedAreRefused() {
        MemorySegment zero = arena.allocate(4 * MIB, 4096);
        assertRefusedWithoutChange(IllegalArgumentException.class,
            () -> node.blocks.addRegion(new AllocatorRegion(0, zero)), "region id 0 is reserved");
        assertRefusedWithoutChange(IllegalArgumentException.class,
            () -> node.blocks.addRegion(new AllocatorRegion(1, zero)), "region 0x1 is known already");
        assertRefusedWithoutChange(IllegalArgumentException.class,
            () -> node.blocks.addRegion(new AllocatorRegion(7, arena.allocate(MIB, 4096))), "at least 2 blocks");
        assertRefusedWithoutChange(IllegalArgumentException.class,
            () -> node.blocks.addRegion(new AllocatorRegion(7, MemorySegment.ofArray(new long[MIB]))), "native segment");
        MemorySegment dirty = arena.allocate(4 * MIB, 4096);
        RegionLayout.setBlockState(dirty, 3, BlockState.slab(1, 1));
        assertRefusedWithoutChange(IllegalArgumentException.class,
            () -> node.blocks.addRegion(new AllocatorRegion(7, dirty)), "not new", "a new region must be zero");
        assertEquals(BlockState.slab(1, 1), RegionLayout.blockState(dirty, 3));
        assertEquals(0, RegionLayout.blockState(dirty, 0), "not formatted");
    }

    @Test
    void regionsThatCannotBeRebuiltAreRefused() {
        MemorySegment zero = arena.allocate(4 * MIB, 4096);
        assertRefusedWithoutChange(IllegalArgumentException.class,
            () -> node.blocks.adoptRegion(new AllocatorRegion(7, zero)), "has no block table", "addRegion");
        MemorySegment twoMiBBlocks = arena.allocate(4 * MIB, 4096);
        new RegionLayout(2 * MIB).format(8, twoMiBBlocks);
        assertRefusedWithoutChange(IllegalArgumentException.class,
            () -> node.blocks.adoptRegion(new AllocatorRegion(8, twoMiBBlocks)),
            "formatted with 2 blocks of 2097152 bytes", "expects 4 blocks of 1048576 bytes");
        for (long corrupt : new long[] {BlockState.TABLE_WORD, 0x0700_0000_0000_0000L, 5L}) {
            MemorySegment region = arena.allocate(4 * MIB, 4096);
            node.layout.format(9, region);
            RegionLayout.setBlockState(region, 2, corrupt);
            assertRefusedWithoutChange(IllegalArgumentException.class,
                () -> node.blocks.adoptRegion(new AllocatorRegion(9, region)), "region 0x9 block 2 has state word 0x"
                    + Long.toHexString(corrupt), "block 0 must be TABLE, the others FREE, SLAB or RELEASED");
        }
        AllocatorRegion known = node.blocks.regions().getFirst();
        assertRefusedWithoutChange(IllegalArgumentException.class, () -> node.blocks.adoptRegion(known), "known already");
    }

    @Test
    void slabIdsOutOfRangeOrTakenAreRefused() {
        assertRefusedWithoutChange(IllegalArgumentException.class, () -> new SlabAllocator(node.blocks, -1), "0..65535");
        assertRefusedWithoutChange(IllegalArgumentException.class, () -> new SlabAllocator(node.blocks, 65536), "0..65535");
        assertRefusedWithoutChange(IllegalStateException.class, () -> new SlabAllocator(node.blocks, 1),
            "slab allocator id 1 is registered already");
        assertEquals(2, new SlabAllocator(node.blocks, 2).slabId());
    }

    @Test
    void aNegativeLowFreeBlocksThresholdIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new BlockAllocator(node.layout, node.regions, node.epochs, -1));
        assertTrue(e.getMessage().contains("0 or more"), e.getMessage());
    }
}
