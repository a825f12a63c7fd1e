package io.farm.bench.txn;

import java.util.SplittableRandom;

/**
 * Chooses the keys of a workload's transactions, uniformly at random, on distinct primaries
 * where the node count allows (FaSST: "keys are chosen such that their primaries are on
 * different machines"). The first {@code min(r, N)} keys go to a uniformly random sequence of
 * distinct nodes; any further key (r > N: O(4,w) on 3 nodes) goes to a node drawn uniformly, so
 * that then one node is the primary of two of the keys. Each key is uniform among its node's
 * keys, and the keys of one transaction are distinct. The {@code w} written keys are a uniform
 * choice among the {@code r}. Confined to one worker.
 */
final class KeyChooser {
    /** Largest amount a transfer moves. */
    static final int MAX_TRANSFER = 100;

    private final KeySpace keys;
    private final Workload workload;
    private final int coordinator;
    private final SplittableRandom random;
    private final int[] nodes;

    KeyChooser(KeySpace keys, Workload workload, int coordinator, SplittableRandom random) {
        if (keys.nodes() < 2 && workload.reads() > 1) {
            throw new IllegalArgumentException(workload.name() + " needs keys on 2 nodes or more");
        }
        this.keys = keys;
        this.workload = workload;
        this.coordinator = coordinator;
        this.random = random;
        this.nodes = new int[keys.nodes()];
    }

    TxnPlan next() {
        int r = workload.reads();
        int n = nodes.length;
        for (int i = 0; i < n; i++) {
            nodes[i] = i;
        }
        for (int i = 0; i < Math.min(r, n); i++) {
            swap(nodes, i, i + random.nextInt(n - i));
        }
        long[] addresses = new long[r];
        long[] chosen = new long[r];
        int[] primaries = new int[r];
        for (int j = 0; j < r; j++) {
            int node = j < n ? nodes[j] : random.nextInt(n);
            long key;
            do {
                key = keys.key(node, random.nextInt(keys.keysPerNode()));
            } while (contains(chosen, j, key));
            chosen[j] = key;
            primaries[j] = node;
            addresses[j] = keys.address(node, (int) (key - keys.key(node, 0)));
        }
        boolean[] written = new boolean[r];
        int[] positions = new int[r];
        for (int i = 0; i < r; i++) {
            positions[i] = i;
        }
        for (int i = 0; i < workload.writes(); i++) {
            swap(positions, i, i + random.nextInt(r - i));
            written[positions[i]] = true;
        }
        return plan(addresses, chosen, primaries, written);
    }

    private TxnPlan plan(long[] addresses, long[] chosen, int[] primaries, boolean[] written) {
        int writes = 0;
        long writtenPrimaries = 0;
        long backups = 0;
        int remoteReadOnly = 0;
        for (int j = 0; j < addresses.length; j++) {
            if (written[j]) {
                writes++;
                writtenPrimaries |= 1L << primaries[j];
                for (int backup : keys.backupsOf(addresses[j])) {
                    backups |= 1L << backup;
                }
            } else if (primaries[j] != coordinator) {
                remoteReadOnly++;
            }
        }
        // Transactions.txCommit: a read-only transaction of one object does not validate.
        int validationReads = writes == 0 && addresses.length <= 1 ? 0 : remoteReadOnly;
        long amount = workload.bank() ? 1 + random.nextInt(MAX_TRANSFER) : 0;
        return new TxnPlan(addresses, chosen, written, amount, Long.bitCount(writtenPrimaries), remoteReadOnly,
            Long.bitCount(backups), validationReads);
    }

    private static boolean contains(long[] values, int count, long value) {
        for (int i = 0; i < count; i++) {
            if (values[i] == value) {
                return true;
            }
        }
        return false;
    }

    private static void swap(int[] values, int i, int j) {
        int t = values[i];
        values[i] = values[j];
        values[j] = t;
    }
}
