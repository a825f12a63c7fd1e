package io.farm.alloc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BlockStateTest {
    @Test
    void aZeroWordIsAFreeBlock() {
        assertEquals(0L, BlockState.FREE_WORD);
        assertEquals(BlockState.FREE, BlockState.kind(0L));
        assertTrue(BlockState.isValid(0L));
    }

    @Test
    void kindIsTheTopByteClassTheNextAndOwnerTheLow16Bits() {
        assertEquals(0x0100_0000_0000_0000L, BlockState.TABLE_WORD);
        long slab = BlockState.slab(0xAB, 0x1234);
        assertEquals(0x02AB_0000_0000_1234L, slab);
        assertEquals(BlockState.SLAB, BlockState.kind(slab));
        assertEquals(0xAB, BlockState.sizeClass(slab));
        assertEquals(0x1234, BlockState.owner(slab));
    }

    @Test
    void releasedCarriesClassAndA48BitEpoch() {
        long released = BlockState.released(255, BlockState.MAX_EPOCH);
        assertEquals(0x03FF_FFFF_FFFF_FFFFL, released);
        assertEquals(BlockState.RELEASED, BlockState.kind(released));
        assertEquals(255, BlockState.sizeClass(released));
        assertEquals(BlockState.MAX_EPOCH, BlockState.epoch(released));
        assertEquals(7, BlockState.epoch(BlockState.released(0, 7)));
    }

    @Test
    void wordsNoAllocatorWritesAreInvalid() {
        assertFalse(BlockState.isValid(0x0400_0000_0000_0000L), "kind 4");
        assertFalse(BlockState.isValid(0x0000_0000_0000_0001L), "FREE with a payload");
        assertFalse(BlockState.isValid(0x0101_0000_0000_0000L), "TABLE with a class");
        assertFalse(BlockState.isValid(0x0203_0000_0001_0000L), "SLAB with bits above the owner");
        assertTrue(BlockState.isValid(BlockState.slab(3, BlockState.MAX_OWNER)));
    }

    @Test
    void outOfRangeFieldsAreRejected() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BlockState.slab(256, 0)).getMessage().contains("0..255"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BlockState.slab(0, 0x10000)).getMessage().contains("0..65535"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BlockState.released(0, 1L << 48)).getMessage()
            .contains("0.." + BlockState.MAX_EPOCH));
        assertThrows(IllegalArgumentException.class, () -> BlockState.released(-1, 0));
    }

    @Test
    void toStringNamesKindAndFields() {
        assertEquals("FREE", BlockState.toString(0));
        assertEquals("TABLE", BlockState.toString(BlockState.TABLE_WORD));
        assertEquals("SLAB(class 3, owner 1)", BlockState.toString(BlockState.slab(3, 1)));
        assertEquals("RELEASED(class 4, epoch 9)", BlockState.toString(BlockState.released(4, 9)));
        assertEquals("invalid(0x400000000000000)", BlockState.toString(0x0400_0000_0000_0000L));
    }
}
