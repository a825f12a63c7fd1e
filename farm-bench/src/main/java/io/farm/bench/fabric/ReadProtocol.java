package io.farm.bench.fabric;

/**
 * Messages of the fabric benchmark's RPC reads.
 *
 * <pre>
 *  REQUEST  (24 bytes)                     RESPONSE (8 + length bytes)
 *  +-----------------+                     +-----------------+
 *  | tag      (long) |  echoed -------->   | tag      (long) |
 *  | offset   (long) |                     | data ...        |
 *  | length   (int)  |                     +-----------------+
 *  | pad      (int)  |
 *  +-----------------+
 * </pre>
 */
final class ReadProtocol {
    /** Message type of a read request. */
    static final int REQUEST = 1;
    /** Message type of a read response. */
    static final int RESPONSE = 2;
    /** Length of a request payload. */
    static final int REQUEST_LENGTH = 24;
    /** Largest response payload (tag + data); the message rings must carry it. */
    static final int MAX_RESPONSE = 8 + 8192;

    private ReadProtocol() {
    }
}
