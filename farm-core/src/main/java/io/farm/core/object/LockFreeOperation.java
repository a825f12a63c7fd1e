package io.farm.core.object;

import io.farm.core.cluster.NodeWorker;

/**
 * One lock-free operation of a worker (FaRM's {@code Lf* op}): opened by
 * {@link LockFreeReads#lockFreeStart}, closed by {@link LockFreeReads#lockFreeEnd}. While it is
 * open its worker holds its epoch, so memory it may read is not reused for another size class.
 * Confined to its worker.
 */
public final class LockFreeOperation {
    private final NodeWorker worker;
    private boolean open = true;
    private int outstanding;

    LockFreeOperation(NodeWorker worker) {
        this.worker = worker;
    }

    /** The worker it runs on. */
    public NodeWorker worker() {
        return worker;
    }

    /** Whether it is open (started, not ended). */
    public boolean isOpen() {
        return open;
    }

    /** Its reads not yet completed. */
    public int outstanding() {
        return outstanding;
    }

    void close() {
        open = false;
    }

    void readStarted() {
        outstanding++;
    }

    void readDone() {
        outstanding--;
    }
}
