package io.farm.core.rpc;

import io.farm.core.cluster.Node;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Layouts of the RPC frames ({@link Rpc}): the payloads of message-ring records
 * ({@link io.farm.core.msg.RecordDescriptor}) of two system message types. Every field is
 * little-endian at an offset that is a multiple of its size; bytes marked zero are written zero
 * and ignored on receipt. The arguments and results of each method are laid out by the
 * descriptor of the service that defines it (farm's: {@link io.farm.core.alloc.AllocationMessageDescriptor}).
 *
 * <pre>
 *  RPC request, type {@value #RPC_REQUEST}: caller's worker t to the callee's worker t
 *   0               8               16      20      24
 *  +---------------+---------------+-------+-------+----------------------------+
 *  | configuration |  request id   |method | zero  | arguments, 0 .. n bytes    |
 *  +---------------+---------------+-------+-------+----------------------------+
 *
 *  RPC response, type {@value #RPC_RESPONSE}: the callee's worker t back to the caller's worker t
 *   0               8               16      20      24
 *  +---------------+---------------+-------+-------+----------------------------+
 *  | configuration |  request id   |status | zero  | result (status OK) or the  |
 *  |               |               |       |       | reason, UTF-8 (any other)  |
 *  +---------------+---------------+-------+-------+----------------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>configuration</b>: the id of the configuration the sender is in (SOSP'15: every
 *       message carries it). Nodes run the static configuration of their
 *       {@link io.farm.core.config.ClusterConfig}, id {@value #STATIC_CONFIGURATION}, until
 *       reconfiguration arrives with farm-recovery; a receiver in another configuration refuses
 *       the message (an RPC answers {@link #WRONG_CONFIGURATION}).</li>
 *   <li><b>request id</b>: chosen by the calling worker, unique among its outstanding calls; the
 *       response repeats it. Responses come back to the calling worker (thread pairing of the
 *       message rings), so ids need only be unique per worker.</li>
 *   <li><b>method</b>: the service called, 0 .. {@value #MAX_METHOD}; the services' descriptors
 *       assign farm's.</li>
 *   <li><b>status</b>: {@link #OK}, {@link #FAILED} (the service refused or threw; the reason
 *       says why), {@link #UNKNOWN_METHOD} or {@link #WRONG_CONFIGURATION}.</li>
 * </ul>
 */
public final class RpcMessageDescriptor {
    /** Message type of an RPC request. */
    public static final int RPC_REQUEST = Node.SYSTEM_TYPES + 0x10;
    /** Message type of an RPC response. */
    public static final int RPC_RESPONSE = Node.SYSTEM_TYPES + 0x11;

    /** The id of the static configuration every node runs today; farm's other system messages carry it too. */
    public static final long STATIC_CONFIGURATION = 0;

    /** Largest RPC method number. */
    public static final int MAX_METHOD = 0xFF;

    /** RPC status: the call succeeded; the body is its result. */
    public static final int OK = 0;
    /** RPC status: the service refused the call or failed; the body is the reason. */
    public static final int FAILED = 1;
    /** RPC status: the callee has no such method; the body says which it has. */
    public static final int UNKNOWN_METHOD = 2;
    /** RPC status: the callee is in another configuration; the body says which. */
    public static final int WRONG_CONFIGURATION = 3;

    /** Offset of the configuration id in an RPC request or response. */
    public static final int CONFIGURATION_OFFSET = 0;
    /** Offset of the request id in an RPC request or response. */
    public static final int REQUEST_ID_OFFSET = 8;
    /** Offset of the method of an RPC request. */
    public static final int METHOD_OFFSET = 16;
    /** Offset of the status of an RPC response. */
    public static final int STATUS_OFFSET = 16;
    /** Length of the header of an RPC request or response; the body follows. */
    public static final int RPC_HEADER_LENGTH = 24;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private RpcMessageDescriptor() {
    }

    /** Writes the header of an RPC request at {@code offset}. */
    public static void writeRequestHeader(MemorySegment dst, long offset, long configuration, long requestId, int method) {
        dst.set(LONG, offset + CONFIGURATION_OFFSET, configuration);
        dst.set(LONG, offset + REQUEST_ID_OFFSET, requestId);
        dst.set(INT, offset + METHOD_OFFSET, method);
        dst.set(INT, offset + METHOD_OFFSET + Integer.BYTES, 0);
    }

    /** Writes the header of an RPC response at {@code offset}. */
    public static void writeResponseHeader(MemorySegment dst, long offset, long configuration, long requestId, int status) {
        dst.set(LONG, offset + CONFIGURATION_OFFSET, configuration);
        dst.set(LONG, offset + REQUEST_ID_OFFSET, requestId);
        dst.set(INT, offset + STATUS_OFFSET, status);
        dst.set(INT, offset + STATUS_OFFSET + Integer.BYTES, 0);
    }

    /** The configuration id of an RPC request or response at {@code offset}. */
    public static long configuration(MemorySegment src, long offset) {
        return src.get(LONG, offset + CONFIGURATION_OFFSET);
    }

    /** The request id of an RPC request or response at {@code offset}. */
    public static long requestId(MemorySegment src, long offset) {
        return src.get(LONG, offset + REQUEST_ID_OFFSET);
    }

    /** The method of an RPC request at {@code offset}. */
    public static int method(MemorySegment src, long offset) {
        return src.get(INT, offset + METHOD_OFFSET);
    }

    /** The status of an RPC response at {@code offset}. */
    public static int status(MemorySegment src, long offset) {
        return src.get(INT, offset + STATUS_OFFSET);
    }

    /** A status's name, for messages. */
    public static String statusName(int status) {
        return switch (status) {
            case OK -> "OK";
            case FAILED -> "FAILED";
            case UNKNOWN_METHOD -> "UNKNOWN_METHOD";
            case WRONG_CONFIGURATION -> "WRONG_CONFIGURATION";
            default -> "unknown status " + status;
        };
    }

    /**
     * Writes {@code reason} in UTF-8 at {@code offset}, cut to at most {@code maxLength} bytes;
     * returns the bytes written.
     */
    public static int writeReason(MemorySegment dst, long offset, String reason, int maxLength) {
        byte[] bytes = reason.getBytes(StandardCharsets.UTF_8);
        int length = Math.min(bytes.length, maxLength);
        MemorySegment.copy(bytes, 0, dst, ValueLayout.JAVA_BYTE, offset, length);
        return length;
    }

    /** The reason of a failed RPC: {@code length} bytes of UTF-8 at {@code offset}. */
    public static String reason(MemorySegment src, long offset, int length) {
        byte[] bytes = new byte[length];
        MemorySegment.copy(src, ValueLayout.JAVA_BYTE, offset, bytes, 0, length);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * Checks that a message of {@code length} bytes from {@code sender} is at least as long as the header it needs.
     *
     * @param what the message, for the exception ("RPC request")
     * @throws IllegalArgumentException naming the message, its sender and both lengths
     */
    public static void requireAtLeast(String what, int sender, int length, int minimum) {
        if (length < minimum) {
            throw new IllegalArgumentException("malformed " + what + " from node " + sender + ": " + length
                + " bytes, shorter than its " + minimum + "-byte header");
        }
    }
}
