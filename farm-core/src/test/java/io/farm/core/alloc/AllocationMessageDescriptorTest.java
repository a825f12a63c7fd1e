package io.farm.core.alloc;

import io.farm.core.addr.RegionId;
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
    void anRpcRequestHeaderIsConfigurationRequestIdMethodAndZeroLittleEndian() {
        MemorySegment message = Arena.ofAuto().allocate(40);
        message.fill((byte) 0x55);

        AllocationMessageDescriptor.writeRequestHeader(message, 8, 0x0102, 0x0A0B0C0D0E0F1011L, AllocationMessageDescriptor.REGION_CREATE);

        assertEquals("0201000000000000" + "11100f0e0d0c0b0a" + "01000000" + "00000000", hex(message, 8, 24));
        assertEquals("5555555555555555", hex(message, 32, 8), "nothing written past the header");
        assertEquals(0x0102, AllocationMessageDescriptor.configuration(message, 8));
        assertEquals(0x0A0B0C0D0E0F1011L, AllocationMessageDescriptor.requestId(message, 8));
        assertEquals(AllocationMessageDescriptor.REGION_CREATE, AllocationMessageDescriptor.method(message, 8));
    }

    @Test
    void anRpcResponseHeaderCarriesItsStatusWhereARequestHasItsMethod() {
        MemorySegment message = Arena.ofAuto().allocate(24);

        AllocationMessageDescriptor.writeResponseHeader(message, 0, 0, 7, AllocationMessageDescriptor.UNKNOWN_METHOD);

        assertEquals("0000000000000000" + "0700000000000000" + "02000000" + "00000000", hex(message, 0, 24));
        assertEquals(AllocationMessageDescriptor.UNKNOWN_METHOD, AllocationMessageDescriptor.status(message, 0));
        assertEquals("UNKNOWN_METHOD", AllocationMessageDescriptor.statusName(2));
        assertEquals("unknown status 9", AllocationMessageDescriptor.statusName(9));
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
    void epochMessagesAreConfigurationAndEpoch() {
        MemorySegment message = Arena.ofAuto().allocate(16);

        AllocationMessageDescriptor.writeEpochMessage(message, 0, AllocationMessageDescriptor.STATIC_CONFIGURATION, 0x0203);

        assertEquals("0000000000000000" + "0302000000000000", hex(message, 0, 16));
        assertEquals(0x0203, AllocationMessageDescriptor.epoch(message, 0));
    }

    @Test
    void reasonsAreUtf8CutToTheSpaceGiven() {
        MemorySegment message = Arena.ofAuto().allocate(16);

        int length = AllocationMessageDescriptor.writeReason(message, 0, "région refusée", 6);

        assertEquals(6, length);
        assertEquals("r\u00e9gio", AllocationMessageDescriptor.reason(message, 0, length));
    }

    @Test
    void lengthChecksNameTheMessageTheSenderAndBothLengths() {
        IllegalArgumentException wrong = assertThrows(IllegalArgumentException.class,
            () -> AllocationMessageDescriptor.requireLength("region-create arguments", 3, 12, 16));
        assertEquals("malformed region-create arguments from node 3: 12 bytes, expected 16", wrong.getMessage());
        IllegalArgumentException shorter = assertThrows(IllegalArgumentException.class,
            () -> AllocationMessageDescriptor.requireAtLeast("RPC request", 1, 20, 24));
        assertEquals("malformed RPC request from node 1: 20 bytes, shorter than its 24-byte header", shorter.getMessage());
        AllocationMessageDescriptor.requireLength("epoch advance", 0, 16, 16);
        AllocationMessageDescriptor.requireAtLeast("RPC response", 0, 30, 24);
    }
}
