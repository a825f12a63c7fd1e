package io.farm.alloc;

/**
 * Reclamation epochs for tests: one node with one worker, the test thread. {@link #advance()}
 * starts a new epoch and declares the previous one passed by everyone; {@link #requestAdvance()}
 * only counts the requests.
 */
final class TestEpochs implements ReclamationEpochs {
    private long current = 1;
    private long safe = 0;
    private int requests;

    @Override
    public long current() {
        return current;
    }

    @Override
    public long safe() {
        return safe;
    }

    @Override
    public void requestAdvance() {
        requests++;
    }

    /** A new epoch; every earlier one becomes safe. */
    void advance() {
        current++;
        safe = current - 1;
    }

    /** A new epoch, with the safe epoch left where it is (a worker still lags). */
    void advanceWithoutReclaiming() {
        current++;
    }

    int requests() {
        return requests;
    }
}
