package io.farm.core.fabric;

/** A capability does not match the target's current registration (wrong key, deregistered or foreign). */
public final class InvalidCapabilityException extends FabricException {
    private static final long serialVersionUID = 1L;

    public InvalidCapabilityException(String message) {
        super(message);
    }
}
