package io.farm.core.ship;

import io.farm.core.rpc.RpcMessageDescriptor;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Layout of a shipped message ({@link FunctionShipping}): the arguments of RPC method
 * {@value #SHIP} (the body of an {@link RpcMessageDescriptor} request frame). The result of the
 * method is the handler's answer, its bytes as they are, with no header of its own. Every field
 * is little-endian at an offset that is a multiple of its size; bytes marked zero are written
 * zero and ignored on receipt.
 *
 * <pre>
 *  arguments of SHIP (method {@value #SHIP})                     result of SHIP
 *   0               8       12      16                            0
 *  +---------------+-------+-------+-------------------------+   +-------------------------+
 *  |    address    |handler| zero  | message, 0 .. n bytes   |   | answer, 0 .. m bytes    |
 *  +---------------+-------+-------+-------------------------+   +-------------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>address</b>: the 64-bit object address ({@link io.farm.core.addr.GlobalAddress})
 *       the message was sent to; the callee is the primary of its region and passes it to the
 *       handler.</li>
 *   <li><b>handler</b>: the application's handler id, {@value #MIN_HANDLER} ..
 *       {@value #MAX_HANDLER}, registered on the callee with
 *       {@link FunctionShipping#msgRegisterHandler}.</li>
 *   <li><b>message</b>, <b>answer</b>: the application's bytes; n is at most the RPC layer's
 *       largest body less {@value #HEADER_LENGTH}, m at most the RPC layer's largest body.</li>
 * </ul>
 */
public final class ShippedMessageDescriptor {
    /**
     * RPC method of function shipping; methods 1-4 are memory management's
     * ({@link io.farm.core.alloc.AllocationMessageDescriptor}).
     */
    public static final int SHIP = 5;

    /** Smallest application handler id. */
    public static final int MIN_HANDLER = 0;
    /** Largest application handler id. */
    public static final int MAX_HANDLER = 0xFFFF;

    /** Offset of the object address in a shipped message. */
    public static final int ADDRESS_OFFSET = 0;
    /** Offset of the handler id in a shipped message. */
    public static final int HANDLER_OFFSET = 8;
    /** Length of the header of a shipped message; the application's message follows. */
    public static final int HEADER_LENGTH = 16;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private ShippedMessageDescriptor() {
    }

    /** Writes the header of a shipped message at {@code offset}. */
    public static void writeHeader(MemorySegment dst, long offset, long address, int handler) {
        dst.set(LONG, offset + ADDRESS_OFFSET, address);
        dst.set(INT, offset + HANDLER_OFFSET, handler);
        dst.set(INT, offset + HANDLER_OFFSET + Integer.BYTES, 0);
    }

    /** The object address of the shipped message at {@code offset}. */
    public static long address(MemorySegment src, long offset) {
        return src.get(LONG, offset + ADDRESS_OFFSET);
    }

    /** The handler id of the shipped message at {@code offset}. */
    public static int handler(MemorySegment src, long offset) {
        return src.get(INT, offset + HANDLER_OFFSET);
    }

    /** Whether {@code handler} is in the range of application handler ids. */
    public static boolean isHandlerId(int handler) {
        return handler >= MIN_HANDLER && handler <= MAX_HANDLER;
    }
}
