package io.farm.core.fabric;

/** The target node is dead, stopped or unknown: the connection to it is broken. */
public final class PeerUnreachableException extends FabricException {
    private static final long serialVersionUID = 1L;

    public PeerUnreachableException(String message) {
        super(message);
    }
}
