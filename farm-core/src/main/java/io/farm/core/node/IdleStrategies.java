package io.farm.core.node;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.util.List;
import java.util.function.Supplier;

/**
 * The idle strategies a worker may use, by name. An idle strategy is stateful, so every worker
 * needs its own instance: {@link #create(String)} returns a new one on each call.
 *
 * <ul>
 *   <li>{@value #BACKOFF} (default): spin, then yield, then park for a period doubling from
 *       {@value #MIN_PARK_PERIOD_NS} ns up to {@value #MAX_PARK_PERIOD_NS} ns. Several nodes can
 *       share a 2-core machine: an idle worker ends up parked.</li>
 *   <li>{@value #SPIN}: busy spin; never parks, so a worker keeps a core to itself.</li>
 *   <li>{@value #YIELD}: {@link Thread#yield()}; never parks.</li>
 *   <li>{@value #SLEEP}: park for {@value #SLEEP_PERIOD_NS} ns whenever there is no work.</li>
 * </ul>
 *
 * A worker unparks itself when another thread hands it a task, so the park period bounds only
 * how late an idle worker notices work that arrives without a hand-off (a message written into
 * its ring by a one-sided write, a fabric completion).
 */
public final class IdleStrategies {
    /** Spin, then yield, then park with a bounded, growing period. The default. */
    public static final String BACKOFF = "backoff";
    /** Busy spin, never park. */
    public static final String SPIN = "spin";
    /** Yield the processor, never park. */
    public static final String YIELD = "yield";
    /** Park for a fixed period. */
    public static final String SLEEP = "sleep";
    /** The default strategy's name. */
    public static final String DEFAULT = BACKOFF;
    /** Every accepted name. */
    public static final List<String> NAMES = List.of(BACKOFF, SPIN, YIELD, SLEEP);

    /** Busy spins of {@value #BACKOFF} before it starts yielding. */
    public static final long BACKOFF_MAX_SPINS = 20;
    /** Yields of {@value #BACKOFF} before it starts parking. */
    public static final long BACKOFF_MAX_YIELDS = 10;
    /** First park period of {@value #BACKOFF}, in nanoseconds (1 µs). */
    public static final long MIN_PARK_PERIOD_NS = 1_000;
    /** Largest park period of {@value #BACKOFF}, in nanoseconds (1 ms). */
    public static final long MAX_PARK_PERIOD_NS = 1_000_000;
    /** Park period of {@value #SLEEP}, in nanoseconds (1 ms). */
    public static final long SLEEP_PERIOD_NS = 1_000_000;

    private IdleStrategies() {
    }

    /**
     * A new instance of the strategy named {@code name}.
     *
     * @throws IllegalArgumentException if the name is not one of {@link #NAMES}
     */
    public static IdleStrategy create(String name) {
        return switch (check(name)) {
            case BACKOFF -> new BackoffIdleStrategy(BACKOFF_MAX_SPINS, BACKOFF_MAX_YIELDS, MIN_PARK_PERIOD_NS,
                MAX_PARK_PERIOD_NS);
            case SPIN -> new BusySpinIdleStrategy();
            case YIELD -> new YieldingIdleStrategy();
            case SLEEP -> new SleepingIdleStrategy(SLEEP_PERIOD_NS);
            default -> throw new AssertionError(name);
        };
    }

    /**
     * A factory of new instances of the strategy named {@code name}, checked now.
     *
     * @throws IllegalArgumentException if the name is not one of {@link #NAMES}
     */
    public static Supplier<IdleStrategy> factory(String name) {
        String checked = check(name);
        return () -> create(checked);
    }

    /**
     * Returns {@code name} if it names an idle strategy (exactly, lower case).
     *
     * @throws IllegalArgumentException naming the accepted values otherwise
     */
    public static String check(String name) {
        if (name == null || !NAMES.contains(name)) {
            throw new IllegalArgumentException("unknown idle strategy '" + name + "': accepted values are "
                + BACKOFF + " (spin, yield, then park up to 1 ms; the default), " + SPIN + " (busy spin, never parks), "
                + YIELD + " (yield, never parks), " + SLEEP + " (park 1 ms when idle)");
        }
        return name;
    }
}
