package io.farm.core.fabric;

/** A fabric operation was refused or failed. Nothing was written by a refused operation. */
public class FabricException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public FabricException(String message) {
        super(message);
    }

    public FabricException(String message, Throwable cause) {
        super(message, cause);
    }
}
