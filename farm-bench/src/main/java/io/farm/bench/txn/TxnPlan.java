package io.farm.bench.txn;

/**
 * One transaction of a workload, chosen before it runs (its retries run the same plan), with
 * the costs SOSP'15's formula expects of it.
 *
 * @param addresses       the objects it reads, in order
 * @param keys            their keys
 * @param written         which of them it writes
 * @param amount          the amount a bank transfer moves from the first object to the second (0 otherwise)
 * @param writtenPrimaries Pw: distinct primaries of written objects
 * @param remoteReadOnly  Pr: objects read and not written whose primary is not the coordinator
 * @param backupNodes     distinct backups of written objects' regions (one COMMIT-BACKUP record each)
 * @param validationReads one-sided reads validation makes: Pr, or 0 for a read-only transaction of one object
 */
record TxnPlan(long[] addresses, long[] keys, boolean[] written, long amount, int writtenPrimaries,
               int remoteReadOnly, int backupNodes, int validationReads) {
    /** Objects read: one one-sided read each. */
    int objectReads() {
        return addresses.length;
    }

    /** Objects written. */
    int writes() {
        int writes = 0;
        for (boolean w : written) {
            writes += w ? 1 : 0;
        }
        return writes;
    }
}
