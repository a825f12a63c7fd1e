package io.farm.core.tx.history;

import io.farm.core.addr.GlobalAddress;
import io.farm.core.object.ObjectLayout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Builds histories of a serial execution: transactions run one after another on objects whose
 * versions go up by {@link ObjectLayout#nextVersion}; each gets a real-time interval around its
 * place in the serial order, so an interval may overlap its neighbours' but a transaction never
 * commits before one that precedes it serially starts. Anomalous transactions can be appended.
 */
final class SerialHistory {
    private static final long SPACING = 100;

    private final Random random;
    private final long[] addresses;
    private final long[] current;
    private final List<CommittedTransaction> transactions = new ArrayList<>();
    private final InitialVersions initialVersions = new InitialVersions();
    private long nextId = 1;
    private long clock;

    /** {@code objects} objects, some with registered initial versions other than 0. */
    SerialHistory(long seed, int objects) {
        random = new Random(seed);
        addresses = new long[objects];
        current = new long[objects];
        for (int i = 0; i < objects; i++) {
            addresses[i] = GlobalAddress.of(1 + i % 3, (long) ObjectLayout.LINE * i);
            if (random.nextInt(4) == 0) {
                current[i] = random.nextInt(1000);
                initialVersions.register(addresses[i], current[i]);
            }
        }
    }

    /** Appends {@code count} serial transactions, each reading and writing a few random objects. */
    SerialHistory run(int count, int maxReads, int maxWrites) {
        for (int t = 0; t < count; t++) {
            clock += SPACING;
            long start = clock - random.nextInt((int) SPACING * 3);
            CommittedTransaction.Builder builder = CommittedTransaction.builder(nextId++, start);
            int reads = random.nextInt(maxReads + 1);
            for (int r = 0; r < reads; r++) {
                int object = random.nextInt(addresses.length);
                builder.read(addresses[object], current[object]);
            }
            int writes = random.nextInt(maxWrites + 1);
            boolean[] written = new boolean[addresses.length];
            for (int w = 0; w < writes; w++) {
                int object = random.nextInt(addresses.length);
                if (!written[object]) {
                    written[object] = true;
                    long next = ObjectLayout.nextVersion(current[object]);
                    builder.write(addresses[object], current[object], next);
                    current[object] = next;
                }
            }
            transactions.add(builder.commit(clock + random.nextInt((int) SPACING * 3)));
        }
        return this;
    }

    long address(int object) {
        return addresses[object];
    }

    long currentVersion(int object) {
        return current[object];
    }

    /** Installs the next version of {@code object} and returns it, for anomalous writers. */
    long bump(int object) {
        current[object] = ObjectLayout.nextVersion(current[object]);
        return current[object];
    }

    /** A builder for a new transaction starting after every recorded transaction committed. */
    CommittedTransaction.Builder begin() {
        clock += SPACING * 10;
        return CommittedTransaction.builder(nextId++, clock);
    }

    /** A time after every start and commit so far. */
    long later() {
        clock += SPACING * 10;
        return clock;
    }

    CommittedTransaction add(CommittedTransaction transaction) {
        transactions.add(transaction);
        return transaction;
    }

    InitialVersions initialVersions() {
        return initialVersions;
    }

    /** The history, its transactions shuffled so that nothing depends on recording order. */
    History history() {
        List<CommittedTransaction> shuffled = new ArrayList<>(transactions);
        Collections.shuffle(shuffled, random);
        return History.of(shuffled);
    }
}
