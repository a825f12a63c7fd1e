package io.farm.bench.txn;

import java.util.List;

/**
 * One workload of {@code farm bench txn}. {@code O(r,w)} is FaSST's object store workload (OSDI'16
 * §6.1): a transaction reads {@code r} keys and updates {@code w} of them; the bank transfers an
 * amount between two accounts (reads two objects, writes both).
 *
 * @param name     the name printed in tables
 * @param jsonName the name of the workload's object in the JSON line
 * @param reads    objects each transaction reads
 * @param writes   objects of those it writes
 * @param bank     whether the writes move balance between the two objects (else they count an update)
 */
record Workload(String name, String jsonName, int reads, int writes, boolean bank) {
    /** Single-key read-only transactions. */
    static final Workload O_1_0 = new Workload("O(1,0)", "o_1_0", 1, 0, false);
    /** Multi-key read-only transactions. */
    static final Workload O_4_0 = new Workload("O(4,0)", "o_4_0", 4, 0, false);
    /** Multi-key read-write transactions. */
    static final Workload O_4_2 = new Workload("O(4,2)", "o_4_2", 4, 2, false);
    /** Transfers between two accounts on different primaries. */
    static final Workload BANK = new Workload("bank", "bank", 2, 2, true);

    /** Every workload, in the order they run. */
    static final List<Workload> ALL = List.of(O_1_0, O_4_0, O_4_2, BANK);
}
