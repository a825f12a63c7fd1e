package io.farm.alloc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;

import static io.farm.alloc.TestNode.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SlabAllocatorTest {
    /** The largest size class of which 3 objects fit in a 1 MiB block (exactly 3). */
    private static final int THIRD = largestClassFitting(3);
    private static final int THIRD_SIZE = SizeClasses.sizeOf(THIRD);

    private TestNode node;

    private static int largestClassFitting(int objects) {
        int sizeClass = SizeClasses.classOf(MIB / objects);
        return SizeClasses.sizeOf(sizeClass) > MIB / objects ? sizeClass - 1 : sizeClass;
    }

    @AfterEach
    void close() {
        if (node != null) {
            node.close();
        }
    }

    private static int block(long address) {
        return ObjectAddress.offset(address) / MIB;
    }

    private static int region(long address) {
        return ObjectAddress.regionId(address);
    }

    private long incarnationWord(long address) {
        return ObjectHeader.incarnationWord(memory(region(address)), ObjectAddress.offset(address));
    }

    private MemorySegment memory(int regionId) {
        return node.blocks.regions().stream().filter(r -> r.regionId() == regionId).findFirst().orElseThrow().memory();
    }

    private long state(long address) {
        return RegionLayout.blockState(memory(region(address)), block(address));
    }

    @Test
    void theFirstAllocationAsksForARegionAndObjectsOfAClassShareABlockOnCacheLineBoundaries() {
        node = new TestNode(1, 0);
        assertEquals(ObjectAddress.NULL, node.slab(0).tryAllocate(100, ObjectAddress.NULL));
        long first = node.allocate(100);
        assertEquals(List.of(RegionSource.NO_HINT), node.regions.hints());
        assertEquals(1, region(first));
        assertEquals(1, block(first), "block 0 holds the table");
        for (int i = 1; i < 10; i++) {
            long next = node.slab(0).tryAllocate(100, ObjectAddress.NULL);
            assertEquals(first + i * 128L, next, "class of 100 B is 128 B");
            assertEquals(0, ObjectAddress.offset(next) % ObjectHeader.ALIGNMENT);
            assertTrue(ObjectHeader.isAllocated(incarnationWord(next)));
        }
        assertEquals(BlockState.slab(SizeClasses.classOf(100), 0), state(first));
        assertNotEquals(block(first), block(node.slab(0).tryAllocate(200, ObjectAddress.NULL)), "one class per block");
    }

    @Test
    void theMostRecentlyFreedSlotIsReusedFirstWithItsIncarnationIncremented() {
        node = new TestNode(1, 0);
        long a = node.allocate(64);
        long b = node.allocate(64);
        long c = node.allocate(64);
        node.slab(0).free(b);
        node.slab(0).free(a);
        long word = incarnationWord(a);
        assertFalse(ObjectHeader.isAllocated(word));
        assertEquals(1, ObjectHeader.incarnation(word));
        assertEquals(a, node.slab(0).tryAllocate(64, ObjectAddress.NULL));
        assertEquals(b, node.slab(0).tryAllocate(50, ObjectAddress.NULL));
        assertEquals(c + 64, node.slab(0).tryAllocate(1, ObjectAddress.NULL));
        assertEquals(1, ObjectHeader.incarnation(incarnationWord(b)));
        assertTrue(ObjectHeader.isAllocated(incarnationWord(b)));
    }

    @Test
    void aHintedBlockWithRoomGetsTheObjectEvenWhenAnotherBlockIsCurrent() {
        node = new TestNode(1, 0);
        long[] firstBlock = {node.allocate(THIRD_SIZE), node.allocate(THIRD_SIZE), node.allocate(THIRD_SIZE)};
        long inSecond = node.allocate(THIRD_SIZE);
        assertEquals(block(firstBlock[0]) + 1, block(inSecond));
        node.slab(0).free(firstBlock[1]);
        assertEquals(firstBlock[1], node.slab(0).tryAllocate(THIRD_SIZE, firstBlock[0]));
        assertEquals(block(inSecond), block(node.slab(0).tryAllocate(THIRD_SIZE, ObjectAddress.NULL)));
    }

    @Test
    void aHintWhoseBlockIsFullPlacesTheObjectInTheHintsRegion() {
        node = new TestNode(1, 0);
        long inRegion1 = node.allocate(MIB);
        node.allocate(MIB);
        node.allocate(MIB);
        long inRegion2 = node.allocate(64);
        assertEquals(2, region(inRegion2));
        node.slab(0).free(inRegion1);
        node.epochs.advance();
        long hinted = node.slab(0).tryAllocate(64, ObjectAddress.of(1, 3 * MIB + 64));
        assertEquals(1, region(hinted), "the released block of region 1 is the hint region's room");
        assertEquals(2, region(node.slab(0).tryAllocate(64, ObjectAddress.NULL)));
        assertEquals(2, region(node.slab(0).tryAllocate(64, inRegion2)));
    }

    @Test
    void withNoRoomTryAllocateReturnsNullAndAllocateGetsARegionNearTheHint() {
        node = new TestNode(1, 0);
        long first = node.allocate(MIB);
        node.allocate(MIB);
        node.allocate(MIB);
        assertEquals(ObjectAddress.NULL, node.slab(0).tryAllocate(MIB, first));
        assertEquals(ObjectAddress.NULL, node.slab(0).tryAllocate(64, first));
        long next = node.allocate(0, 64, first);
        assertEquals(List.of(RegionSource.NO_HINT, 1), node.regions.hints());
        assertEquals(2, region(next));
        assertEquals(2, node.blocks.stats().regions());
    }

    @Test
    void aFailingRegionSourceFailsTheAllocation() {
        node = new TestNode(1, 0);
        node.regions.limit(0);
        CompletionException e = assertThrows(CompletionException.class,
            () -> node.slab(0).allocate(64, ObjectAddress.NULL).toCompletableFuture().join());
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertEquals(0, node.blocks.stats().allocations());
    }

    @Test
    void anEmptyBlockGoesBackAndAnotherClassGetsItOnlyOnceItsEpochIsSafe() {
        node = new TestNode(1, 0);
        long a = node.allocate(MIB);
        long b = node.allocate(MIB);
        node.allocate(MIB);
        node.slab(0).free(b);
        assertEquals(BlockState.released(SizeClasses.COUNT - 1, 1), state(b));
        assertEquals(ObjectAddress.NULL, node.slab(0).tryAllocate(64, ObjectAddress.NULL), "epoch 1 is not safe");
        node.epochs.advance();
        long small = node.slab(0).tryAllocate(64, ObjectAddress.NULL);
        assertEquals(b, small);
        assertEquals(BlockState.slab(0, 0), state(small));
        assertEquals(BlockState.slab(SizeClasses.COUNT - 1, 0), state(a));
    }

    @Test
    void aReleasedBlockIsReusedAtOnceByItsOwnClass() {
        node = new TestNode(1, 0);
        node.allocate(MIB);
        long b = node.allocate(MIB);
        node.allocate(MIB);
        node.slab(0).free(b);
        assertEquals(b, node.slab(0).tryAllocate(MIB - 64, ObjectAddress.NULL));
        assertEquals(BlockState.slab(SizeClasses.COUNT - 1, 0), state(b));
        assertEquals(1, ObjectHeader.incarnation(incarnationWord(b)));
    }

    @Test
    void theBlockAClassAllocatesFromStaysWithItsSlabWhenItEmpties() {
        node = new TestNode(1, 0);
        long a = node.allocate(64);
        node.slab(0).free(a);
        assertEquals(BlockState.slab(0, 0), state(a));
        assertEquals(a, node.slab(0).tryAllocate(64, ObjectAddress.NULL));
    }

    @Test
    void aBlockFormattedForAnotherClassStartsItsIncarnationsAboveTheOldOnes() {
        node = new TestNode(1, 0);
        long big = node.allocate(MIB);
        for (int i = 0; i < 3; i++) {
            node.slab(0).free(big);
            assertEquals(big, node.slab(0).tryAllocate(MIB, ObjectAddress.NULL));
        }
        node.allocate(MIB);
        node.allocate(MIB);
        MemorySegment memory = memory(region(big));
        int offset = ObjectAddress.offset(big);
        memory.set(ValueLayout.JAVA_LONG, offset + 64, 0xDEAD);
        memory.set(ValueLayout.JAVA_LONG, offset + 72, 0xBEEF);
        node.slab(0).free(big);
        node.epochs.advance();
        long small = node.slab(0).tryAllocate(64, ObjectAddress.NULL);
        assertEquals(big, small);
        assertEquals(4, ObjectHeader.incarnation(incarnationWord(small)), "the big object was freed 4 times");
        assertEquals(0, memory.get(ValueLayout.JAVA_LONG, offset + 64), "version word zeroed");
        assertEquals(ObjectHeader.freeWord(4), memory.get(ValueLayout.JAVA_LONG, offset + 72));
        assertEquals(ObjectHeader.freeWord(4), memory.get(ValueLayout.JAVA_LONG, offset + MIB - 64 + 8));
    }

    @Test
    void epochsAreAskedToAdvanceWhenFreeBlocksFallBelowTheThresholdOncePerEpoch() {
        node = new TestNode(1, 2);
        long a = node.allocate(MIB);
        long b = node.allocate(MIB);
        assertEquals(0, node.epochs.requests(), "1 free block, but nothing to reclaim");
        node.slab(0).free(a);
        assertEquals(1, node.epochs.requests());
        node.slab(0).free(b);
        assertEquals(1, node.epochs.requests(), "once per epoch");
        node.epochs.advanceWithoutReclaiming();
        node.slab(0).tryAllocate(64, ObjectAddress.NULL);
        assertEquals(2, node.epochs.requests());
        node.epochs.advance();
        node.slab(0).tryAllocate(128, ObjectAddress.NULL);
        assertEquals(1, node.blocks.stats().freeBlocks(), "a and b were reusable; one was taken for 128 B objects");
        assertEquals(2, node.epochs.requests(), "below the threshold, but nothing waits for an epoch");
    }

    @Test
    void anObjectFreedByAnotherSlabIsFreeAtOnceAndReusedByItsOwnSlab() {
        node = new TestNode(2, 0);
        long a = node.allocate(0, 64, ObjectAddress.NULL);
        long b = node.slab(0).tryAllocate(64, ObjectAddress.NULL);
        node.slab(1).free(a);
        assertFalse(ObjectHeader.isAllocated(incarnationWord(a)));
        assertEquals(node.scan(), node.blocks.state());
        long fromOther = node.slab(1).tryAllocate(64, a);
        assertNotEquals(block(a), block(fromOther), "slab 1 cannot allocate in slab 0's block");
        assertEquals(a, node.slab(0).tryAllocate(64, ObjectAddress.NULL));
        assertEquals(b + 64, node.slab(0).tryAllocate(64, ObjectAddress.NULL));
        assertEquals(1, node.slab(1).frees());
        assertEquals(0, node.slab(0).frees());
    }

    @Test
    void theLastObjectFreedByAnotherSlabReleasesTheBlockWhenItsSlabTakesTheFreeIn() {
        node = new TestNode(2, 0);
        long a = node.allocate(0, MIB, ObjectAddress.NULL);
        node.allocate(0, MIB, ObjectAddress.NULL);
        node.slab(1).free(a);
        assertEquals(BlockState.slab(SizeClasses.COUNT - 1, 0), state(a));
        node.slab(0).tryAllocate(64, ObjectAddress.NULL);
        assertEquals(BlockKind.RELEASED, BlockKind.of(state(a)));
    }

    @Test
    void rebuildFromMemoryRestoresTheStateAndTheSlabsGoOnFromIt() {
        node = new TestNode(2, 0);
        List<Long> live = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            live.add(node.allocate(i % 2, 64 + 300 * (i % 5), ObjectAddress.NULL));
        }
        long big = node.allocate(1, MIB, ObjectAddress.NULL);
        node.slab(1).free(big);
        for (int i = 0; i < 27; i += 3) {
            node.slab(i % 2).free(live.get(i));
        }
        node.slab(0).free(live.get(29));
        AllocatorState before = node.blocks.state();
        assertEquals(node.scan(), before);

        node.rebuild();

        assertNull(before.difference(node.blocks.state()));
        assertEquals(before, node.blocks.state());
        long again = node.slab(1).tryAllocate(64 + 300 * 4, ObjectAddress.NULL);
        assertTrue(again == live.get(9) || again == live.get(29), "slab 1 reuses a freed slot of its rebuilt block");
        assertEquals(big, node.slab(1).tryAllocate(MIB, ObjectAddress.NULL));
    }

    @Test
    void rebuiltBlocksOfAMissingSlabGoToTheFirstSlabThatNeedsTheirClass() {
        node = new TestNode(2, 0);
        long ofSlab1 = node.allocate(1, 64, ObjectAddress.NULL);
        node.allocate(1, 64, ObjectAddress.NULL);
        node.slab(1).free(ofSlab1);
        List<AllocatorRegion> memory = node.blocks.regions();
        BlockAllocator rebuilt = new BlockAllocator(node.layout, node.regions, node.epochs, 0);
        memory.forEach(rebuilt::adoptRegion);
        SlabAllocator only = new SlabAllocator(rebuilt, 0);
        assertEquals(ofSlab1, only.tryAllocate(64, ObjectAddress.NULL));
        assertEquals(BlockState.slab(0, 0), state(ofSlab1));
    }

    @Test
    void anObjectOfARebuiltBlockNoSlabAdoptedCanBeFreed() {
        node = new TestNode(2, 0);
        long ofSlab1 = node.allocate(1, MIB, ObjectAddress.NULL);
        List<AllocatorRegion> memory = node.blocks.regions();
        BlockAllocator rebuilt = new BlockAllocator(node.layout, node.regions, node.epochs, 0);
        memory.forEach(rebuilt::adoptRegion);
        SlabAllocator slab0 = new SlabAllocator(rebuilt, 0);
        slab0.free(ofSlab1);
        assertEquals(BlockState.released(SizeClasses.COUNT - 1, 1), state(ofSlab1));
        assertEquals(AllocatorState.scan(node.layout, memory), rebuilt.state());
    }

    @Test
    void statsCountAllocationsFreesBlocksAndRegions() {
        node = new TestNode(2, 0);
        Set<Long> objects = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            objects.add(node.allocate(i % 2, 64, ObjectAddress.NULL));
        }
        long big1 = node.allocate(0, MIB, ObjectAddress.NULL);
        long big2 = node.allocate(0, MIB, ObjectAddress.NULL);
        assertEquals(2, region(big2));
        node.slab(1).free(big1);
        node.slab(0).tryAllocate(64, ObjectAddress.NULL);
        AllocatorStats stats = node.blocks.stats();
        assertEquals(5, objects.size());
        assertEquals(8, stats.allocations());
        assertEquals(1, stats.frees());
        assertEquals(2, stats.regions());
        assertEquals(3, stats.blocksInUse(), "a block of 64 B objects per slab, and big2's");
        assertEquals(2, stats.freeBlocks());
        assertEquals(1, stats.blocksAwaitingEpoch());
        assertEquals(2, stats.regionRequests());
        node.epochs.advance();
        AllocatorStats later = node.blocks.stats();
        assertEquals(0, later.blocksAwaitingEpoch());
        assertEquals(3, later.freeBlocks(), "big1's block is reusable by any class");
    }

    /** Block kinds by name, for readable assertions. */
    private enum BlockKind {
        FREE, TABLE, SLAB, RELEASED;

        static BlockKind of(long word) {
            return values()[BlockState.kind(word)];
        }
    }
}
