package io.farm.core.rpc;

import java.util.Objects;

/**
 * An RPC that did not produce a result: the callee refused or failed it, did not know it, did
 * not answer in time, could not be reached, or answered something that is not a result. The
 * message names the method, the callee and the request.
 */
public final class RpcException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why a call failed. */
    public enum Reason {
        /** The callee's service refused the call or failed; the message carries its reason. */
        FAILED,
        /** The callee has no such method. */
        UNKNOWN_METHOD,
        /** The callee is in another configuration than the caller. */
        WRONG_CONFIGURATION,
        /** The callee's answer is not a well-formed result of the method. */
        MALFORMED_RESPONSE,
        /** No answer arrived within the call's timeout; the callee may still act on the request. */
        TIMEOUT,
        /** The request could not be delivered: the callee's node is unreachable. */
        UNREACHABLE
    }

    private final Reason reason;

    /**
     * @param reason  why the call failed
     * @param message what failed and why, naming the method and the callee
     * @param cause   the underlying failure, or null
     */
    public RpcException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** Why the call failed. */
    public Reason reason() {
        return reason;
    }
}
