package io.farm.core.rpc;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The byte layouts of the diagram in {@link RpcMessageDescriptor}, checked byte by byte. */
class RpcMessageDescriptorTest {
    private static String hex(MemorySegment segment, long offset, int length) {
        return HexFormat.of().formatHex(segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void anRpcRequestHeaderIsConfigurationRequestIdMethodAndZeroLittleEndian() {
        MemorySegment message = Arena.ofAuto().allocate(40);
        message.fill((byte) 0x55);

        RpcMessageDescriptor.writeRequestHeader(message, 8, 0x0102, 0x0A0B0C0D0E0F1011L, 1);

        assertEquals("0201000000000000" + "11100f0e0d0c0b0a" + "01000000" + "00000000", hex(message, 8, 24));
        assertEquals("5555555555555555", hex(message, 32, 8), "nothing written past the header");
        assertEquals(0x0102, RpcMessageDescriptor.configuration(message, 8));
        assertEquals(0x0A0B0C0D0E0F1011L, RpcMessageDescriptor.requestId(message, 8));
        assertEquals(1, RpcMessageDescriptor.method(message, 8));
    }

    @Test
    void anRpcResponseHeaderCarriesItsStatusWhereARequestHasItsMethod() {
        MemorySegment message = Arena.ofAuto().allocate(24);

        RpcMessageDescriptor.writeResponseHeader(message, 0, 0, 7, RpcMessageDescriptor.UNKNOWN_METHOD);

        assertEquals("0000000000000000" + "0700000000000000" + "02000000" + "00000000", hex(message, 0, 24));
        assertEquals(RpcMessageDescriptor.UNKNOWN_METHOD, RpcMessageDescriptor.status(message, 0));
        assertEquals("UNKNOWN_METHOD", RpcMessageDescriptor.statusName(2));
        assertEquals("unknown status 9", RpcMessageDescriptor.statusName(9));
    }

    @Test
    void reasonsAreUtf8CutToTheSpaceGiven() {
        MemorySegment message = Arena.ofAuto().allocate(16);

        int length = RpcMessageDescriptor.writeReason(message, 0, "région refusée", 6);

        assertEquals(6, length);
        assertEquals("r\u00e9gio", RpcMessageDescriptor.reason(message, 0, length));
    }

    @Test
    void headerChecksNameTheMessageTheSenderAndBothLengths() {
        IllegalArgumentException shorter = assertThrows(IllegalArgumentException.class,
            () -> RpcMessageDescriptor.requireAtLeast("RPC request", 1, 20, 24));
        assertEquals("malformed RPC request from node 1: 20 bytes, shorter than its 24-byte header", shorter.getMessage());
        RpcMessageDescriptor.requireAtLeast("RPC response", 0, 30, 24);
    }
}
