package io.farm.core.tx.history;

import org.agrona.collections.IntArrayList;

import java.util.Arrays;

/**
 * Who wrote, read and overwrote each (address, version) of a history, compactly: versions get
 * dense ids from an open-addressing hash table, and each version's writers, readers and
 * overwriters are linked lists threaded through shared int arrays (a few ints per use instead of
 * objects per version, so 100,000-transaction histories stay small).
 */
final class VersionIndex {
    static final int WRITER = 0;
    static final int READER = 1;
    static final int OVERWRITER = 2;
    private static final int ROLES = 3;
    private static final int EMPTY = -1;

    /** Hash table: slot to version id, or EMPTY. */
    private int[] slots = new int[1024];
    /** Per version id. */
    private long[] addresses = new long[512];
    private long[] versions = new long[512];
    /** Per version id and role: the first use, or EMPTY. */
    private int[] heads = new int[512 * ROLES];
    private int count;
    /** Per use: the transaction, and the next use of the same version and role. */
    private int[] useTransaction = new int[1024];
    private int[] useNext = new int[1024];
    private int uses;

    VersionIndex() {
        Arrays.fill(slots, EMPTY);
        Arrays.fill(heads, EMPTY);
    }

    /** Records that {@code transaction} used ({@code role}) {@code version} of {@code address}. */
    void add(long address, long version, int role, int transaction) {
        int id = idOf(address, version);
        if (uses == useTransaction.length) {
            useTransaction = Arrays.copyOf(useTransaction, uses * 2);
            useNext = Arrays.copyOf(useNext, uses * 2);
        }
        useTransaction[uses] = transaction;
        useNext[uses] = heads[id * ROLES + role];
        heads[id * ROLES + role] = uses++;
    }

    /** How many distinct versions were used. */
    int versionCount() {
        return count;
    }

    long address(int id) {
        return addresses[id];
    }

    long version(int id) {
        return versions[id];
    }

    /** Replaces {@code into}'s contents with the transactions that used version {@code id} in {@code role}, in order of use. */
    void transactions(int id, int role, IntArrayList into) {
        into.clear();
        for (int use = heads[id * ROLES + role]; use != EMPTY; use = useNext[use]) {
            into.addInt(useTransaction[use]);
        }
        // Lists are built by prepending; restore the order of use.
        for (int i = 0, j = into.size() - 1; i < j; i++, j--) {
            int swap = into.getInt(i);
            into.setInt(i, into.getInt(j));
            into.setInt(j, swap);
        }
    }

    private int idOf(long address, long version) {
        int mask = slots.length - 1;
        for (int slot = hash(address, version) & mask; ; slot = slot + 1 & mask) {
            int id = slots[slot];
            if (id == EMPTY) {
                return insert(slot, address, version);
            }
            if (addresses[id] == address && versions[id] == version) {
                return id;
            }
        }
    }

    private int insert(int slot, long address, long version) {
        if (count == addresses.length) {
            addresses = Arrays.copyOf(addresses, count * 2);
            versions = Arrays.copyOf(versions, count * 2);
            int oldHeads = heads.length;
            heads = Arrays.copyOf(heads, oldHeads * 2);
            Arrays.fill(heads, oldHeads, heads.length, EMPTY);
        }
        int id = count++;
        addresses[id] = address;
        versions[id] = version;
        slots[slot] = id;
        if (count * 2 > slots.length) {
            rehash(slots.length * 2);
        }
        return id;
    }

    private void rehash(int capacity) {
        slots = new int[capacity];
        Arrays.fill(slots, EMPTY);
        int mask = capacity - 1;
        for (int id = 0; id < count; id++) {
            int slot = hash(addresses[id], versions[id]) & mask;
            while (slots[slot] != EMPTY) {
                slot = slot + 1 & mask;
            }
            slots[slot] = id;
        }
    }

    private static int hash(long address, long version) {
        long h = address * 0x9E3779B97F4A7C15L ^ version * 0xC2B2AE3D27D4EB4FL;
        h ^= h >>> 29;
        h *= 0xBF58476D1CE4E5B9L;
        return (int) (h ^ h >>> 32);
    }
}
