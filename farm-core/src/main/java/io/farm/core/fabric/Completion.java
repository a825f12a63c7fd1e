package io.farm.core.fabric;

/**
 * The continuation of a one-sided operation. Invoked exactly once, on the worker that issued
 * the operation, from {@link FabricPort#poll(int)}.
 */
@FunctionalInterface
public interface Completion {
    /**
     * @param failure {@code null} when the operation completed, otherwise why it failed
     *                (typically {@link PeerUnreachableException}); a failed write wrote nothing
     *                the target can rely on
     */
    void complete(FabricException failure);
}
