package io.farm.core.alloc;

import io.farm.core.cluster.Node;
import io.farm.core.rpc.RpcMessageDescriptor;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Layouts of the messages memory management exchanges between nodes: the arguments and results
 * of its RPC methods (the bodies of {@link RpcMessageDescriptor}'s frames), and the payloads of
 * message-ring records ({@link io.farm.core.msg.RecordDescriptor}) of two system message types
 * for the epochs. Every field is little-endian at an offset that is a multiple of its size;
 * bytes marked zero are written zero and ignored on receipt. farm's RPC methods: 1-4 here,
 * 5 function shipping's ({@link io.farm.core.ship.ShippedMessageDescriptor#SHIP}).
 *
 * <pre>
 *  arguments of REGION_CREATE (method {@value #REGION_CREATE})  result of REGION_CREATE
 *   0       4       8               16                             0       4       8
 *  +-------+-------+---------------+                              +-------+-------+
 *  |region | zero  |  size, bytes  |                              |region | zero  |
 *  +-------+-------+---------------+                              +-------+-------+
 *
 *  arguments of REGION_RELEASE (method {@value #REGION_RELEASE})  result of REGION_RELEASE
 *   0       4       8                                              0       4       8
 *  +-------+-------+                                              +-------+-------+
 *  |region | zero  |                                              |region |  held |  held: 1 if the copy
 *  +-------+-------+                                              +-------+-------+  existed and is gone
 *
 *  arguments of OBJECT_ALLOCATE (method {@value #OBJECT_ALLOCATE}) result of OBJECT_ALLOCATE
 *   0       4       8               16                             0               8
 *  +-------+-------+---------------+                              +---------------+
 *  | size  | zero  | hint address  |                              |    address    |
 *  +-------+-------+---------------+                              +---------------+
 *
 *  arguments of OBJECT_FREE (method {@value #OBJECT_FREE})          result of OBJECT_FREE: empty
 *   0               8
 *  +---------------+
 *  |    address    |
 *  +---------------+
 *
 *  epoch advance, type {@value #EPOCH_ADVANCE}, and acknowledgement, type {@value #EPOCH_ACK}
 *   0               8               16
 *  +---------------+---------------+
 *  | configuration |  epoch (>= 1) |
 *  +---------------+---------------+
 * </pre>
 *
 * <ul>
 *   <li><b>size</b>: the object's size in bytes as the caller asked for it; the callee checks it
 *       ({@link io.farm.alloc.SizeClasses}).</li>
 *   <li><b>address</b>, <b>hint address</b>: 64-bit object addresses
 *       ({@link io.farm.core.addr.GlobalAddress}): region id in the high half, offset in the low.
 *       The hint and the freed object lie in a region whose primary is the callee
 *       ({@link NodeAllocator}).</li>
 *   <li><b>configuration</b>: the id of the configuration the sender is in, as in every RPC
 *       frame ({@link RpcMessageDescriptor#STATIC_CONFIGURATION} today); a receiver in another
 *       configuration ignores the message.</li>
 *   <li><b>epoch</b>: in an advance, the epoch the requesting node opened; in an
 *       acknowledgement, the requester's epoch that every worker of the acknowledging node has
 *       passed since the advance reached it ({@link ClusterEpochs}).</li>
 * </ul>
 */
public final class AllocationMessageDescriptor {
    /** Message type of an epoch advance. */
    public static final int EPOCH_ADVANCE = Node.SYSTEM_TYPES + 0x12;
    /** Message type of an epoch acknowledgement. */
    public static final int EPOCH_ACK = Node.SYSTEM_TYPES + 0x13;

    /** RPC method: create the backup copy of a new region. */
    public static final int REGION_CREATE = 1;
    /** RPC method: drop the backup copy of a region whose allocation failed. */
    public static final int REGION_RELEASE = 2;
    /** RPC method: allocate an object near a hint in one of the callee's regions. */
    public static final int OBJECT_ALLOCATE = 3;
    /** RPC method: free an object of one of the callee's regions. */
    public static final int OBJECT_FREE = 4;

    /** Offset of the region id in the arguments and results of the region methods. */
    public static final int REGION_OFFSET = 0;
    /** Offset of the size in the arguments of REGION_CREATE. */
    public static final int SIZE_OFFSET = 8;
    /** Offset of the held flag in the result of REGION_RELEASE. */
    public static final int HELD_OFFSET = 4;
    /** Length of the arguments of REGION_CREATE. */
    public static final int REGION_CREATE_LENGTH = 16;
    /** Length of the arguments of REGION_RELEASE and of the results of both region methods. */
    public static final int REGION_LENGTH = 8;

    /** Offset of the size in the arguments of OBJECT_ALLOCATE. */
    public static final int OBJECT_SIZE_OFFSET = 0;
    /** Offset of the hint address in the arguments of OBJECT_ALLOCATE. */
    public static final int HINT_OFFSET = 8;
    /** Length of the arguments of OBJECT_ALLOCATE. */
    public static final int OBJECT_ALLOCATE_LENGTH = 16;
    /** Offset of the address in the result of OBJECT_ALLOCATE and the arguments of OBJECT_FREE. */
    public static final int ADDRESS_OFFSET = 0;
    /** Length of the result of OBJECT_ALLOCATE and of the arguments of OBJECT_FREE. */
    public static final int ADDRESS_LENGTH = 8;

    /** Offset of the configuration id in an epoch advance or acknowledgement. */
    public static final int CONFIGURATION_OFFSET = 0;
    /** Offset of the epoch in an epoch advance or acknowledgement. */
    public static final int EPOCH_OFFSET = 8;
    /** Length of an epoch advance or acknowledgement. */
    public static final int EPOCH_MESSAGE_LENGTH = 16;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private AllocationMessageDescriptor() {
    }

    /** Writes the arguments of REGION_CREATE at {@code offset}. */
    public static void writeRegionCreate(MemorySegment dst, long offset, int regionId, long size) {
        writeRegion(dst, offset, regionId, 0);
        dst.set(LONG, offset + SIZE_OFFSET, size);
    }

    /** Writes a region id and a second word (zero, or the held flag of a release's result) at {@code offset}. */
    public static void writeRegion(MemorySegment dst, long offset, int regionId, int second) {
        dst.set(INT, offset + REGION_OFFSET, regionId);
        dst.set(INT, offset + REGION_OFFSET + Integer.BYTES, second);
    }

    /** The region id of the region methods' arguments or results at {@code offset}. */
    public static int region(MemorySegment src, long offset) {
        return src.get(INT, offset + REGION_OFFSET);
    }

    /** The size in the arguments of REGION_CREATE at {@code offset}. */
    public static long size(MemorySegment src, long offset) {
        return src.get(LONG, offset + SIZE_OFFSET);
    }

    /** The held flag of the result of REGION_RELEASE at {@code offset}. */
    public static int held(MemorySegment src, long offset) {
        return src.get(INT, offset + HELD_OFFSET);
    }

    /** Writes the arguments of OBJECT_ALLOCATE at {@code offset}. */
    public static void writeObjectAllocate(MemorySegment dst, long offset, int size, long hintAddress) {
        dst.set(INT, offset + OBJECT_SIZE_OFFSET, size);
        dst.set(INT, offset + OBJECT_SIZE_OFFSET + Integer.BYTES, 0);
        dst.set(LONG, offset + HINT_OFFSET, hintAddress);
    }

    /** The size in the arguments of OBJECT_ALLOCATE at {@code offset}. */
    public static int objectSize(MemorySegment src, long offset) {
        return src.get(INT, offset + OBJECT_SIZE_OFFSET);
    }

    /** The hint address in the arguments of OBJECT_ALLOCATE at {@code offset}. */
    public static long hintAddress(MemorySegment src, long offset) {
        return src.get(LONG, offset + HINT_OFFSET);
    }

    /** Writes an object address (the result of OBJECT_ALLOCATE, the arguments of OBJECT_FREE) at {@code offset}. */
    public static void writeAddress(MemorySegment dst, long offset, long address) {
        dst.set(LONG, offset + ADDRESS_OFFSET, address);
    }

    /** The object address of the result of OBJECT_ALLOCATE or the arguments of OBJECT_FREE at {@code offset}. */
    public static long address(MemorySegment src, long offset) {
        return src.get(LONG, offset + ADDRESS_OFFSET);
    }

    /** Writes an epoch advance or acknowledgement at {@code offset}. */
    public static void writeEpochMessage(MemorySegment dst, long offset, long configuration, long epoch) {
        dst.set(LONG, offset + CONFIGURATION_OFFSET, configuration);
        dst.set(LONG, offset + EPOCH_OFFSET, epoch);
    }

    /** The configuration id of an epoch advance or acknowledgement at {@code offset}. */
    public static long configuration(MemorySegment src, long offset) {
        return src.get(LONG, offset + CONFIGURATION_OFFSET);
    }

    /** The epoch of an epoch advance or acknowledgement at {@code offset}. */
    public static long epoch(MemorySegment src, long offset) {
        return src.get(LONG, offset + EPOCH_OFFSET);
    }

    /**
     * Checks that a message of {@code length} bytes from {@code sender} has the expected length.
     *
     * @param what    the message, for the exception ("region-create arguments")
     * @throws IllegalArgumentException naming the message, its sender and both lengths
     */
    public static void requireLength(String what, int sender, int length, int expected) {
        if (length != expected) {
            throw new IllegalArgumentException("malformed " + what + " from node " + sender + ": " + length
                + " bytes, expected " + expected);
        }
    }
}
