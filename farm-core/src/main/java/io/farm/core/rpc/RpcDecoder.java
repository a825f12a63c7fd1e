package io.farm.core.rpc;

import java.lang.foreign.MemorySegment;

/**
 * Turns the result bytes of a successful RPC into the caller's value, on the calling worker,
 * while the response is in its message ring.
 *
 * @param <T> the value the call completes with
 */
@FunctionalInterface
public interface RpcDecoder<T> {
    /**
     * Decodes {@code length} bytes of {@code result} at {@code offset}; the view is valid only
     * during this call.
     *
     * @throws IllegalArgumentException if the bytes are not a result of the method: the call then
     *                                  fails with {@link RpcException.Reason#MALFORMED_RESPONSE}
     */
    T decode(MemorySegment result, long offset, int length);
}
