package io.farm.alloc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RegionLayoutTest {
    private static final int MIB = 1 << 20;
    private final Arena arena = Arena.ofConfined();

    @AfterEach
    void close() {
        arena.close();
    }

    @Test
    void blockSizesAreMultiplesOf1MiBUpTo1GiB() {
        assertEquals(MIB, new RegionLayout(RegionLayout.DEFAULT_BLOCK_SIZE).blockSize());
        assertEquals(3 * MIB, new RegionLayout(3 * MIB).blockSize());
        assertEquals(1 << 30, new RegionLayout(1 << 30).blockSize());
        for (int bad : new int[] {0, -MIB, MIB / 2, MIB + 64, (1 << 30) + MIB}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RegionLayout(bad));
            assertTrue(e.getMessage().contains("multiple of 1048576"), e.getMessage());
        }
    }

    @Test
    void aRegionHoldsAtLeastTwoBlocksAndAtMost2GiB() {
        RegionLayout layout = new RegionLayout(MIB);
        assertEquals(2, layout.blockCount(2 * MIB));
        assertEquals(4, layout.blockCount(4 * MIB + 4096), "the tail is not a block");
        assertEquals(2048, layout.blockCount(1L << 31));
        for (long bad : new long[] {MIB, 2 * MIB - 1, (1L << 31) + MIB}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> layout.blockCount(bad));
            assertTrue(e.getMessage().contains("at least 2 blocks"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> new RegionLayout(2 * MIB).blockCount(3 * MIB));
    }

    @Test
    void formatWritesBlockSizeCountTableStateAndMagicAtTheirOffsets() {
        RegionLayout layout = new RegionLayout(MIB);
        MemorySegment region = arena.allocate(4 * MIB, 4096);
        assertFalse(RegionLayout.isFormatted(region));
        layout.format(7, region);
        assertTrue(RegionLayout.isFormatted(region));
        byte[] magic = region.asSlice(0, 8).toArray(ValueLayout.JAVA_BYTE);
        assertEquals("FARMBLKT", new String(magic, StandardCharsets.US_ASCII));
        assertEquals(MIB, region.get(ValueLayout.JAVA_INT, 8));
        assertEquals(4, region.get(ValueLayout.JAVA_INT, 12));
        assertEquals(BlockState.TABLE_WORD, region.get(ValueLayout.JAVA_LONG, 64));
        for (int i = 1; i < 4; i++) {
            assertEquals(BlockState.FREE_WORD, RegionLayout.blockState(region, i));
        }
        RegionLayout.setBlockState(region, 3, BlockState.slab(5, 2));
        assertEquals(BlockState.slab(5, 2), region.get(ValueLayout.JAVA_LONG, 64 + 3 * 8));
    }

    @Test
    void formatRefusesARegionThatIsNotNewAndChangesNothing() {
        RegionLayout layout = new RegionLayout(MIB);
        MemorySegment formatted = arena.allocate(4 * MIB, 4096);
        layout.format(1, formatted);
        IllegalArgumentException again = assertThrows(IllegalArgumentException.class, () -> layout.format(1, formatted));
        assertTrue(again.getMessage().contains("adoptRegion"), again.getMessage());

        MemorySegment dirty = arena.allocate(4 * MIB, 4096);
        RegionLayout.setBlockState(dirty, 2, BlockState.slab(0, 0));
        IllegalArgumentException notZero = assertThrows(IllegalArgumentException.class, () -> layout.format(2, dirty));
        assertTrue(notZero.getMessage().contains("block table word 2 is not zero"), notZero.getMessage());
        assertFalse(RegionLayout.isFormatted(dirty));
        assertEquals(0, RegionLayout.blockState(dirty, 0));
    }

    @Test
    void regionMemoryMustBeNativeAndAligned() {
        RegionLayout layout = new RegionLayout(MIB);
        IllegalArgumentException heap = assertThrows(IllegalArgumentException.class,
            () -> layout.checkRegionMemory(1, MemorySegment.ofArray(new long[MIB / 2])));
        assertTrue(heap.getMessage().contains("native segment"), heap.getMessage());
        MemorySegment unaligned = arena.allocate(4 * MIB + 64, 4096).asSlice(8, 4 * MIB);
        IllegalArgumentException misaligned = assertThrows(IllegalArgumentException.class,
            () -> layout.checkRegionMemory(1, unaligned));
        assertTrue(misaligned.getMessage().contains("not aligned to 64 bytes"), misaligned.getMessage());
    }

    @Test
    void blocksAndSlotsAreAddressedByOffset() {
        RegionLayout layout = new RegionLayout(2 * MIB);
        assertEquals(4 * MIB, layout.blockOffset(2));
        assertEquals(2, layout.blockIndex(4 * MIB + 100));
        assertEquals(2 * MIB / 64, layout.slotsPerBlock(0));
        assertEquals(2, layout.slotsPerBlock(SizeClasses.COUNT - 1));
    }
}
