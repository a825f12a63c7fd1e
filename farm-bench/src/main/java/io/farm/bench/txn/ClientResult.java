package io.farm.bench.txn;

import org.HdrHistogram.Histogram;

/**
 * What the transactions of one or more workers produced, with the sums over committed
 * transactions of what SOSP'15's cost formula expects of each ({@link TxnPlan}).
 *
 * @param committed        transactions committed
 * @param gaveUp           transactions that aborted on every attempt
 * @param updates          objects written by committed O(r,w) transactions (each write counts one update)
 * @param writtenPrimaries sum of Pw
 * @param remoteReadOnly   sum of Pr
 * @param backupNodes      sum of the distinct backups of written objects (COMMIT-BACKUP records)
 * @param objectReads      sum of the objects read (one one-sided read each)
 * @param validationReads  sum of the validation reads
 * @param readRetries      fabric reads of lock-free reads that found an inconsistent copy (locked, or
 *                         mid-install) and read again, in every attempt
 * @param latency          issue-to-commit latency of committed transactions, nanoseconds
 */
record ClientResult(long committed, long gaveUp, long updates, long writtenPrimaries, long remoteReadOnly,
                    long backupNodes, long objectReads, long validationReads, long readRetries, Histogram latency) {
    /** The sum of two workers' results. */
    ClientResult plus(ClientResult o) {
        Histogram sum = latency.copy();
        sum.add(o.latency);
        return new ClientResult(committed + o.committed, gaveUp + o.gaveUp, updates + o.updates,
            writtenPrimaries + o.writtenPrimaries, remoteReadOnly + o.remoteReadOnly, backupNodes + o.backupNodes,
            objectReads + o.objectReads, validationReads + o.validationReads, readRetries + o.readRetries, sum);
    }

    /** Accumulates a worker's result; confined to that worker. */
    static final class Builder {
        private long committed;
        private long gaveUp;
        private long updates;
        private long writtenPrimaries;
        private long remoteReadOnly;
        private long backupNodes;
        private long objectReads;
        private long validationReads;
        private long readRetries;
        private boolean bank;

        Builder bank(boolean bank) {
            this.bank = bank;
            return this;
        }

        void committed(TxnPlan plan) {
            committed++;
            updates += bank ? 0 : plan.writes();
            writtenPrimaries += plan.writtenPrimaries();
            remoteReadOnly += plan.remoteReadOnly();
            backupNodes += plan.backupNodes();
            objectReads += plan.objectReads();
            validationReads += plan.validationReads();
        }

        void readRetries(int retries) {
            readRetries += retries;
        }

        void gaveUp() {
            gaveUp++;
        }

        ClientResult build(Histogram latency) {
            return new ClientResult(committed, gaveUp, updates, writtenPrimaries, remoteReadOnly, backupNodes, objectReads,
                validationReads, readRetries, latency);
        }
    }
}
