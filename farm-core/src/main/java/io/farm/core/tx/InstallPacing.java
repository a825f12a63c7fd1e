package io.farm.core.tx;

import io.farm.core.object.ObjectLayout;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Keeps a node's installs of one object at least {@link ObjectLayout#MIN_VERSION_INTERVAL_NANOS}
 * apart, the pacing that lock-free reads' time bound relies on
 * ({@link io.farm.core.object.LockFreeReads#MAX_READ_NANOS}). Objects share stripes by address;
 * an install waits for the last install of its stripe to be old enough, so two objects of one
 * stripe can only delay each other by the interval. A distributed commit takes a message round
 * trip per version and never waits; a single-machine commit without backups (cache mode) can.
 */
final class InstallPacing {
    private static final int STRIPES = 4096;

    /** Per stripe: when its last install began ({@link System#nanoTime()}). */
    private final AtomicLongArray lastInstall = new AtomicLongArray(STRIPES);

    /** Waits, if needed, until an install of the object at {@code address} may begin, and records it. */
    void awaitTurn(long address) {
        int stripe = (int) (mix(address) & STRIPES - 1);
        long now = System.nanoTime();
        while (now - lastInstall.get(stripe) < ObjectLayout.MIN_VERSION_INTERVAL_NANOS) {
            Thread.onSpinWait();
            now = System.nanoTime();
        }
        lastInstall.set(stripe, now);
    }

    private static long mix(long address) {
        long h = (address >>> 6) * 0x9E3779B97F4A7C15L;
        return h ^ h >>> 29;
    }
}
