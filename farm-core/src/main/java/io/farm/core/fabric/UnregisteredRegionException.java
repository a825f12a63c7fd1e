package io.farm.core.fabric;

/** The target node has no region with that id registered for remote access. */
public final class UnregisteredRegionException extends FabricException {
    private static final long serialVersionUID = 1L;

    public UnregisteredRegionException(String message) {
        super(message);
    }
}
