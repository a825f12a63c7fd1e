package io.farm.core.fabric;

/** An offset or length falls outside the registered region or the local buffer. */
public final class OutOfRangeException extends FabricException {
    private static final long serialVersionUID = 1L;

    public OutOfRangeException(String message) {
        super(message);
    }
}
