package io.farm.alloc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ObjectAddressTest {
    @Test
    void regionIdIsTheHigh32BitsAndOffsetTheLow32() {
        long address = ObjectAddress.of(0x0102_0304, 0x0506_0708);
        assertEquals(0x0102_0304_0506_0708L, address);
        assertEquals(0x0102_0304, ObjectAddress.regionId(address));
        assertEquals(0x0506_0708, ObjectAddress.offset(address));
    }

    @Test
    void regionIdsWithTheTopBitSetSurviveTheRoundTrip() {
        long address = ObjectAddress.of(0xFF00_0001, Integer.MAX_VALUE);
        assertEquals(0xFF00_0001, ObjectAddress.regionId(address));
        assertEquals(Integer.MAX_VALUE, ObjectAddress.offset(address));
    }

    @Test
    void nullIsRegionZeroOffsetZero() {
        assertEquals(ObjectAddress.NULL, ObjectAddress.of(0, 0));
    }

    @Test
    void negativeOffsetsAreRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ObjectAddress.of(1, -64));
        assertTrue(e.getMessage().contains("0.." + Integer.MAX_VALUE), e.getMessage());
    }

    @Test
    void toStringShowsRegionAndOffsetInHex() {
        assertEquals("0x1000002+0x100040", ObjectAddress.toString(ObjectAddress.of(0x0100_0002, 0x10_0040)));
    }
}
