package io.farm.core.alloc;

import io.farm.core.addr.RegionId;
import io.farm.core.rpc.RpcMessageDescriptor;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The byte layouts of the diagram in {@link AllocationMessageDescriptor}, checked byte by byte. */
class AllocationMessageDescriptorTest {
    private static String hex(MemorySegment segment, long offset, int length) {
        return HexFormat.of().formatHex(segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void regionArgumentsAndResultsAreRegionZeroAndSize() {
        MemorySegment message = Arena.ofAuto().allocate(16);
        int regionId = RegionId.of(0x12, 0x345678);

        AllocationMessageDescriptor.writeRegionCreate(message, 0, regionId, 4 << 20);
        assertEquals("78563412" + "00000000" + "0000400000000000", hex(message, 0, 16));
        assertEquals(regionId, AllocationMessageDescriptor.region(message, 0));
        assertEquals(4 << 20, AllocationMessageDescriptor.size(message, 0));

        AllocationMessageDescriptor.writeRegion(message, 0, regionId, 1);
        assertEquals("78563412" + "01000000", hex(message, 0, 8));
        assertEquals(1, AllocationMessageDescriptor.held(message, 0));
    }

    @Test
    void objectArgumentsAndResultsAreSizeZeroHintAndAddress() {
        MemorySegment message = Arena.ofAuto().allocate(16);
        long hint = 0x0123_4567_0010_0040L;

        AllocationMessageDescriptor.writeObjectAllocate(message, 0, 0x0A0B, hint);
        assertEquals("0b0a0000" + "00000000" + "4000100067452301", hex(message, 0, 16));
        assertEquals(0x0A0B, AllocationMessageDescriptor.objectSize(message, 0));
        assertEquals(hint, AllocationMessageDescriptor.hintAddress(message, 0));

        AllocationMessageDescriptor.writeAddress(message, 0, hint);
        assertEquals("4000100067452301", hex(message, 0, 8));
        assertEquals(hint, AllocationMessageDescriptor.address(message, 0));
    }

    @Test
    void epochMessagesAreConfigurationAndEpoch() {
        MemorySegment message = Arena.ofAuto().allocate(16);

        AllocationMessageDescriptor.writeEpochMessage(message, 0, RpcMessageDescriptor.STATIC_CONFIGURATION, 0x0203);

        assertEquals("0000000000000000" + "0302000000000000", hex(message, 0, 16));
        assertEquals(0x0203, AllocationMessageDescriptor.epoch(message, 0));
        assertEquals(RpcMessageDescriptor.STATIC_CONFIGURATION, AllocationMessageDescriptor.configuration(message, 0));
    }

    @Test
    void lengthChecksNameTheMessageTheSenderAndBothLengths() {
        IllegalArgumentException wrong = assertThrows(IllegalArgumentException.class,
            () -> AllocationMessageDescriptor.requireLength("region-create arguments", 3, 12, 16));
        assertEquals("malformed region-create arguments from node 3: 12 bytes, expected 16", wrong.getMessage());
        AllocationMessageDescriptor.requireLength("epoch advance", 0, 16, 16);
    }
}
