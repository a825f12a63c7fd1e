package io.farm.core.fabric.shm;

import java.util.Collection;
import java.util.concurrent.locks.LockSupport;

/**
 * The daemon thread that notices peers dying, stopping and restarting: every
 * {@link #PERIOD_NANOS} it refreshes every peer the fabric has referred to. It parks between
 * rounds rather than spinning, since several node processes may share a couple of cores. A
 * dead peer is seen by operations at most one period (plus scheduling delay) after it died.
 */
final class PeerMonitor implements Runnable {
    /** Time between two rounds of probes. */
    static final long PERIOD_NANOS = 10_000_000;

    private final Collection<Peer> peers;
    private final Thread thread;
    private volatile boolean running = true;

    PeerMonitor(int node, Collection<Peer> peers) {
        this.peers = peers;
        this.thread = Thread.ofPlatform().daemon().name("farm-shm-monitor-node-" + node).unstarted(this);
    }

    void start() {
        thread.start();
    }

    @Override
    public void run() {
        while (running) {
            for (Peer peer : peers) {
                if (!running) {
                    return;
                }
                peer.refresh();
            }
            LockSupport.parkNanos(PERIOD_NANOS);
        }
    }

    /** Stops the thread and waits for it. */
    void stop() {
        running = false;
        LockSupport.unpark(thread);
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
