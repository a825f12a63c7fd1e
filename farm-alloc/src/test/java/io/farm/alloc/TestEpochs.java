package io.farm.alloc;

/**
 * Reclamation epochs for tests, advanced by the test itself (thread safe). {@link #advance()}
 * starts a new epoch and declares the previous one passed by everyone; {@link #requestAdvance()}
 * only counts the requests.
 */
final class TestEpochs implements ReclamationEpochs {
    private long current = 1;
    private long safe = 0;
    private int requests;

    @Override
    public synchronized long current() {
        return current;
    }

    @Override
    public synchronized long safe() {
        return safe;
    }

    @Override
    public synchronized void requestAdvance() {
        requests++;
    }

    /** A new epoch; every earlier one becomes safe. */
    synchronized void advance() {
        current++;
        safe = current - 1;
    }

    /** A new epoch, with the safe epoch left where it is (a worker still lags). */
    synchronized void advanceWithoutReclaiming() {
        current++;
    }

    synchronized int requests() {
        return requests;
    }
}
