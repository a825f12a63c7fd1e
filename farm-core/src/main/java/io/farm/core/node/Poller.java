package io.farm.core.node;

/**
 * A source of work polled by a {@link Worker} once per step of its event loop: a fabric port's
 * completions, a messenger's incoming rings, ... A poller runs on its worker's thread only.
 */
@FunctionalInterface
public interface Poller {
    /**
     * Does the work that is ready now, without blocking.
     *
     * @return the amount of work done (0 when there was none); it drives the idle strategy
     */
    int poll();
}
