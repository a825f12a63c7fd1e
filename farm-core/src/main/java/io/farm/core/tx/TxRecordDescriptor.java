package io.farm.core.tx;

import io.farm.core.cluster.Node;
import io.farm.core.object.ObjectLayout;
import io.farm.core.rpc.RpcMessageDescriptor;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Wire layout of the commit protocol's log records and messages (SOSP'15 4-phase commit,
 * DESIGN §7). Every record and message starts with the same header; words are native order
 * (both ends share a host or a byte order), at 8-byte aligned offsets of the payload.
 *
 * <pre>
 *  header (every record and message)
 *   0               8               16              20              24
 *  +---------------+---------------+---------------+---------------+
 *  | configuration | transaction id| truncations n | entries m     |
 *  +---------------+---------------+---------------+---------------+
 *  | n truncated transaction ids, 8 bytes each                     |
 *  +---------------------------------------------------------------+
 *  | m object entries                                              |
 *  +---------------------------------------------------------------+
 *
 *  object entry (LOCK and COMMIT-BACKUP records)
 *   0         8              16                24               32     36      40
 *  +---------+--------------+-----------------+----------------+------+-------+--------------------+
 *  | address | read version | read incarnation| new incarnation| size | flags | application bytes, |
 *  |         |              | word            | word           |      |       | padded to 8        |
 *  +---------+--------------+-----------------+----------------+------+-------+--------------------+
 *   read version: the version the transaction read (62 bits); the new version is its
 *                 ObjectLayout.nextVersion
 *   read incarnation word: the incarnation word the transaction read; the lock checks it
 *   new incarnation word: the object's incarnation word after the commit
 *   flags: WRITE (the bytes follow), ALLOCATED (allocated by the transaction), FREED,
 *          ARRAY_ELEMENT (element 1 or later of an array)
 *
 *  LOCK reply message: header (n = m = 0), then
 *   24        28        32
 *  +---------+---------+----------------------+
 *  | status  | unused  | address of the cause |
 *  +---------+---------+----------------------+
 * </pre>
 *
 * <ul>
 *   <li>{@link #LOCK}: log record to the primary of written objects; entries for the objects it
 *       holds. The primary locks each at its read version and answers with a {@link #LOCK_REPLY}.</li>
 *   <li>{@link #COMMIT_BACKUP}: log record to each backup of a written object's region; the same
 *       entries as the LOCK record for that region's objects. Applied at truncation.</li>
 *   <li>{@link #COMMIT_PRIMARY}: log record (header only) to a primary: install the LOCK
 *       record's entries, bump versions, unlock.</li>
 *   <li>{@link #ABORT}: log record (header only) to a primary that got a LOCK: unlock.</li>
 *   <li>{@link #TRUNCATE}: message (header only, truncations) for truncations that found no
 *       record to ride on.</li>
 * </ul>
 * Truncations ride on any record or message to the node (piggybacked): each names a transaction
 * of the sending worker whose records the receiver may truncate.
 */
public final class TxRecordDescriptor {
    /** Log record: lock the entries at their read versions. */
    public static final int LOCK = Node.SYSTEM_TYPES + 0x20;
    /** Message: a primary's answer to a LOCK record. */
    public static final int LOCK_REPLY = Node.SYSTEM_TYPES + 0x21;
    /** Log record: new values for a backup, applied at truncation. */
    public static final int COMMIT_BACKUP = Node.SYSTEM_TYPES + 0x22;
    /** Log record: install the locked entries and unlock. */
    public static final int COMMIT_PRIMARY = Node.SYSTEM_TYPES + 0x23;
    /** Log record: release the locks of a LOCK record. */
    public static final int ABORT = Node.SYSTEM_TYPES + 0x24;
    /** Message: truncations only. */
    public static final int TRUNCATE = Node.SYSTEM_TYPES + 0x25;

    /** The configuration id of every record until reconfiguration exists (recovery's issue). */
    public static final long CONFIGURATION = RpcMessageDescriptor.STATIC_CONFIGURATION;

    /** Offset of the configuration id. */
    public static final int CONFIGURATION_OFFSET = 0;
    /** Offset of the transaction id. */
    public static final int TRANSACTION_OFFSET = 8;
    /** Offset of the number of truncations. */
    public static final int TRUNCATIONS_OFFSET = 16;
    /** Offset of the number of entries. */
    public static final int ENTRIES_OFFSET = 20;
    /** Length of the header without its truncations. */
    public static final int HEADER_LENGTH = 24;

    /** Offset of the address in an entry. */
    public static final int ENTRY_ADDRESS_OFFSET = 0;
    /** Offset of the read version in an entry. */
    public static final int ENTRY_VERSION_OFFSET = 8;
    /** Offset of the read incarnation word in an entry. */
    public static final int ENTRY_READ_INCARNATION_OFFSET = 16;
    /** Offset of the new incarnation word in an entry. */
    public static final int ENTRY_INCARNATION_OFFSET = 24;
    /** Offset of the application size in an entry. */
    public static final int ENTRY_SIZE_OFFSET = 32;
    /** Offset of the flags in an entry. */
    public static final int ENTRY_FLAGS_OFFSET = 36;
    /** Offset of the application bytes in an entry. */
    public static final int ENTRY_DATA_OFFSET = 40;

    /** Entry flag: the application bytes follow and are the object's new value. */
    public static final int WRITE = 1;
    /** Entry flag: the transaction allocated the object. */
    public static final int ALLOCATED = 2;
    /** Entry flag: the transaction frees the object. */
    public static final int FREED = 4;
    /**
     * Entry flag: the object is element 1 or later of an array (one allocation, see
     * {@link Transaction#txAllocArray}); its free changes its header only, the allocator frees the
     * array with element 0.
     */
    public static final int ARRAY_ELEMENT = 8;
    private static final int FLAGS = WRITE | ALLOCATED | FREED | ARRAY_ELEMENT;

    /** Offset of the status in a LOCK reply. */
    public static final int REPLY_STATUS_OFFSET = HEADER_LENGTH;
    /** Offset of the address of the cause in a LOCK reply. */
    public static final int REPLY_ADDRESS_OFFSET = HEADER_LENGTH + 8;
    /** Length of a LOCK reply. */
    public static final int REPLY_LENGTH = HEADER_LENGTH + 16;

    /** LOCK reply status: every entry is locked. */
    public static final int LOCKED = 0;
    /** LOCK reply status: an object was locked by another transaction. */
    public static final int LOCK_HELD = 1;
    /** LOCK reply status: an object's version is not the one read. */
    public static final int VERSION_CHANGED = 2;
    /** LOCK reply status: an object was freed. */
    public static final int OBJECT_FREED = 3;
    /** LOCK reply status: the receiver is not the primary of an entry's region, or another configuration. */
    public static final int WRONG_PRIMARY = 4;
    /** LOCK reply status: the record was malformed; the cause is in the receiver's error log. */
    public static final int MALFORMED = 5;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    private TxRecordDescriptor() {
    }

    /** Length of a header carrying {@code truncations} truncations. */
    public static int headerLength(int truncations) {
        return HEADER_LENGTH + truncations * Long.BYTES;
    }

    /** Length of an entry of {@code size} application bytes ({@code write}: whether they are carried). */
    public static int entryLength(int size, boolean write) {
        return ENTRY_DATA_OFFSET + (write ? align(size) : 0);
    }

    private static int align(int n) {
        return n + 7 & ~7;
    }

    /** Writes a header at {@code offset}; the truncations and entries follow, written by the caller. */
    public static void putHeader(MemorySegment dst, long offset, long transaction, int truncations, int entries) {
        dst.set(LONG, offset + CONFIGURATION_OFFSET, CONFIGURATION);
        dst.set(LONG, offset + TRANSACTION_OFFSET, transaction);
        dst.set(INT, offset + TRUNCATIONS_OFFSET, truncations);
        dst.set(INT, offset + ENTRIES_OFFSET, entries);
    }

    /** Writes truncation {@code index} of the header at {@code offset}. */
    public static void putTruncation(MemorySegment dst, long offset, int index, long transaction) {
        dst.set(LONG, offset + HEADER_LENGTH + (long) index * Long.BYTES, transaction);
    }

    /**
     * Writes an entry's fields at {@code offset} and returns the entry's length; with
     * {@link #WRITE} the caller writes the {@code size} application bytes at
     * {@code offset + ENTRY_DATA_OFFSET}.
     */
    public static int putEntry(MemorySegment dst, long offset, long address, long readVersion,
                               long readIncarnationWord, long incarnationWord, int size, int flags) {
        dst.set(LONG, offset + ENTRY_ADDRESS_OFFSET, address);
        dst.set(LONG, offset + ENTRY_VERSION_OFFSET, readVersion);
        dst.set(LONG, offset + ENTRY_READ_INCARNATION_OFFSET, readIncarnationWord);
        dst.set(LONG, offset + ENTRY_INCARNATION_OFFSET, incarnationWord);
        dst.set(INT, offset + ENTRY_SIZE_OFFSET, size);
        dst.set(INT, offset + ENTRY_FLAGS_OFFSET, flags);
        return entryLength(size, (flags & WRITE) != 0);
    }

    /** Writes a LOCK reply at {@code offset}. */
    public static void putReply(MemorySegment dst, long offset, long transaction, int status, long address) {
        putHeader(dst, offset, transaction, 0, 0);
        dst.set(INT, offset + REPLY_STATUS_OFFSET, status);
        dst.set(INT, offset + REPLY_STATUS_OFFSET + Integer.BYTES, 0);
        dst.set(LONG, offset + REPLY_ADDRESS_OFFSET, address);
    }

    /** The configuration id of the record at {@code offset}. */
    public static long configuration(MemorySegment src, long offset) {
        return src.get(LONG, offset + CONFIGURATION_OFFSET);
    }

    /** The transaction id of the record at {@code offset}. */
    public static long transaction(MemorySegment src, long offset) {
        return src.get(LONG, offset + TRANSACTION_OFFSET);
    }

    /** The number of truncations of the record at {@code offset}. */
    public static int truncations(MemorySegment src, long offset) {
        return src.get(INT, offset + TRUNCATIONS_OFFSET);
    }

    /** The number of entries of the record at {@code offset}. */
    public static int entries(MemorySegment src, long offset) {
        return src.get(INT, offset + ENTRIES_OFFSET);
    }

    /** Truncation {@code index} of the record at {@code offset}. */
    public static long truncation(MemorySegment src, long offset, int index) {
        return src.get(LONG, offset + HEADER_LENGTH + (long) index * Long.BYTES);
    }

    /** The address of the entry at {@code entry}. */
    public static long entryAddress(MemorySegment src, long entry) {
        return src.get(LONG, entry + ENTRY_ADDRESS_OFFSET);
    }

    /** The read version of the entry at {@code entry}. */
    public static long entryVersion(MemorySegment src, long entry) {
        return src.get(LONG, entry + ENTRY_VERSION_OFFSET);
    }

    /** The read incarnation word of the entry at {@code entry}. */
    public static long entryReadIncarnation(MemorySegment src, long entry) {
        return src.get(LONG, entry + ENTRY_READ_INCARNATION_OFFSET);
    }

    /** The new incarnation word of the entry at {@code entry}. */
    public static long entryIncarnation(MemorySegment src, long entry) {
        return src.get(LONG, entry + ENTRY_INCARNATION_OFFSET);
    }

    /** The application size of the entry at {@code entry}. */
    public static int entrySize(MemorySegment src, long entry) {
        return src.get(INT, entry + ENTRY_SIZE_OFFSET);
    }

    /** The flags of the entry at {@code entry}. */
    public static int entryFlags(MemorySegment src, long entry) {
        return src.get(INT, entry + ENTRY_FLAGS_OFFSET);
    }

    /** The status of the LOCK reply at {@code offset}. */
    public static int replyStatus(MemorySegment src, long offset) {
        return src.get(INT, offset + REPLY_STATUS_OFFSET);
    }

    /** The address of the cause in the LOCK reply at {@code offset}. */
    public static long replyAddress(MemorySegment src, long offset) {
        return src.get(LONG, offset + REPLY_ADDRESS_OFFSET);
    }

    /**
     * Checks the framing of the record of {@code length} bytes at {@code offset}: the header, its
     * truncations and every entry fit exactly, with known flags and sizes in range.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static void validate(MemorySegment src, long offset, int length, String what) {
        if (length < HEADER_LENGTH) {
            throw new IllegalArgumentException("malformed " + what + ": " + length + " bytes, shorter than the "
                + HEADER_LENGTH + "-byte header");
        }
        int truncations = truncations(src, offset);
        int entries = entries(src, offset);
        if (truncations < 0 || entries < 0 || headerLength(truncations) > length) {
            throw new IllegalArgumentException("malformed " + what + ": " + truncations + " truncations and " + entries
                + " entries do not fit " + length + " bytes");
        }
        long entry = offset + headerLength(truncations);
        long end = offset + length;
        for (int i = 0; i < entries; i++) {
            if (entry + ENTRY_DATA_OFFSET > end) {
                throw new IllegalArgumentException("malformed " + what + ": entry " + i + " of " + entries
                    + " starts past the record's " + length + " bytes");
            }
            int size = entrySize(src, entry);
            int flags = entryFlags(src, entry);
            if (size < 0 || size > ObjectLayout.MAX_APPLICATION_SIZE || (flags & ~FLAGS) != 0) {
                throw new IllegalArgumentException("malformed " + what + ": entry " + i + " has size " + size
                    + " (accepted 0.." + ObjectLayout.MAX_APPLICATION_SIZE + ") and flags " + flags + " (accepted "
                    + FLAGS + " bits)");
            }
            entry += entryLength(size, (flags & WRITE) != 0);
            if (entry > end) {
                throw new IllegalArgumentException("malformed " + what + ": entry " + i + " ends past the record's "
                    + length + " bytes");
            }
        }
    }

    /** The offset of the first entry of the record at {@code offset}. */
    public static long firstEntry(MemorySegment src, long offset) {
        return offset + headerLength(truncations(src, offset));
    }

    /** The offset of the entry after the entry at {@code entry}. */
    public static long nextEntry(MemorySegment src, long entry) {
        return entry + entryLength(entrySize(src, entry), (entryFlags(src, entry) & WRITE) != 0);
    }
}
