package io.farm.core.fabric.shm;

/**
 * Layout of a node's capability table, the file {@code node-<id>/capabilities.tbl} of the
 * cluster directory: the shm fabric's stand-in for the NIC's memory-registration table. The
 * owner node maps it and is its only writer; every peer maps it and reads it.
 *
 * <pre>
 *  header, one 64-byte line at offset 0
 *   0            8        12       16           24            32            40          64
 *  +------------+--------+--------+------------+-------------+-------------+-----------+
 *  |   magic    |version |capacity| owner pid  | incarnation | owner state |  unused   |
 *  +------------+--------+--------+------------+-------------+-------------+-----------+
 *
 *  entry i, at HEADER_LENGTH + i * ENTRY_LENGTH, i in [0, capacity)
 *   0              8              16          20          24            32
 *  +--------------+--------------+-----------+-----------+-------------+
 *  |    state     |     key      | region id |  unused   |    size     |
 *  +--------------+--------------+-----------+-----------+-------------+
 *
 *  key (64 bits), unique per registration
 *   63                         32 31                          0
 *  +-----------------------------+-----------------------------+
 *  | incarnation's high 32 bits  |  registration number (>= 1) |
 *  +-----------------------------+-----------------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>owner state</b> is {@link #OWNER_OPEN} while the owner's fabric is open. The owner
 *       stores {@link #OWNER_CLOSED} (release) before it withdraws its entries, at open and at
 *       close, and {@link #OWNER_OPEN} (release) after writing pid and incarnation.</li>
 *   <li><b>entry state</b> is a counter: odd means published, even means free. It is bumped by
 *       one on every publication and every withdrawal and never reset, not even by a new
 *       incarnation, so a reader that loads the same odd state (acquire) before and after
 *       reading the fields read one consistent entry (a seqlock).</li>
 *   <li><b>publication</b>: with the state even, the owner fences, writes key, region id and size,
 *       then stores state + 1 with release.</li>
 *   <li><b>withdrawal</b>: the owner stores key 0 (release), then state + 1 (release). An
 *       operation checks the entry's key with one acquire load, so it is refused from the
 *       moment the key is cleared.</li>
 * </ul>
 *
 * All words are in the host's native byte order: the table never leaves the host.
 */
final class CapabilityTableLayout {
    /** "FARMCAPS" in ASCII, read as a little-endian long. */
    static final long MAGIC = 0x5350_4143_4D52_4146L;
    /** Version of this layout; a table with another version is replaced at open. */
    static final int VERSION = 1;
    /** Entries per table: the most regions one node can have registered at once. */
    static final int CAPACITY = 1024;

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 8;
    static final int CAPACITY_OFFSET = 12;
    static final int OWNER_PID_OFFSET = 16;
    static final int INCARNATION_OFFSET = 24;
    static final int OWNER_STATE_OFFSET = 32;
    static final int HEADER_LENGTH = 64;

    static final int ENTRY_STATE_OFFSET = 0;
    static final int ENTRY_KEY_OFFSET = 8;
    static final int ENTRY_REGION_OFFSET = 16;
    static final int ENTRY_SIZE_OFFSET = 24;
    static final int ENTRY_LENGTH = 32;

    /** Length of the table file. */
    static final long FILE_LENGTH = HEADER_LENGTH + (long) CAPACITY * ENTRY_LENGTH;

    /** Owner state: the owner's fabric is not open (stopped, or starting an incarnation). */
    static final long OWNER_CLOSED = 0;
    /** Owner state: the owner's fabric is open. */
    static final long OWNER_OPEN = 1;

    /** Key value of a free or withdrawn entry; never issued. */
    static final long NO_KEY = 0;
    /** Largest registration number of one incarnation. */
    static final long MAX_REGISTRATION_NUMBER = 0xFFFF_FFFFL;

    private CapabilityTableLayout() {
    }

    /** Offset of entry {@code slot} in the table. */
    static long entryOffset(int slot) {
        return HEADER_LENGTH + (long) slot * ENTRY_LENGTH;
    }

    /** Whether an entry state means published. */
    static boolean isPublished(long entryState) {
        return (entryState & 1) == 1;
    }

    /** The key of registration {@code number} (1 .. {@value #MAX_REGISTRATION_NUMBER}) of an incarnation. */
    static long key(long incarnation, long number) {
        return incarnation & 0xFFFF_FFFF_0000_0000L | number;
    }

    /** Whether {@code key} was issued by {@code incarnation}. */
    static boolean isKeyOf(long key, long incarnation) {
        return (key ^ incarnation) >>> 32 == 0;
    }
}
