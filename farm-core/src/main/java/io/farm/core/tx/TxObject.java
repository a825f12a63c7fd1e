package io.farm.core.tx;

import io.farm.core.object.ObjectBuffer;
import io.farm.core.object.ObjectLayout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One object a transaction touched: what it read (version, incarnation word) and what it does
 * to it at commit ({@link TxRecordDescriptor} entry flags). The transaction's view of the object
 * is {@link #buffer}: a write replaces the application bytes of that copy in place.
 */
final class TxObject {
    final long address;
    final int size;
    final int primary;
    final ObjectBuffer buffer;
    final long readVersion;
    final long readIncarnationWord;
    /** {@link TxRecordDescriptor#WRITE}, {@link TxRecordDescriptor#ALLOCATED}, {@link TxRecordDescriptor#FREED}. */
    int flags;
    /** The backups of the object's region, set when the commit starts (written objects only). */
    int[] backups;
    /** Whether the transaction knows this is element 1 or later of an array (allocated or read as one). */
    boolean arrayElement;

    TxObject(long address, int size, int primary, ObjectBuffer buffer, int flags) {
        this.address = address;
        this.size = size;
        this.primary = primary;
        this.buffer = buffer;
        MemorySegment stored = buffer.stored();
        this.readVersion = ObjectLayout.version(stored.get(ValueLayout.JAVA_LONG, ObjectLayout.VERSION_OFFSET));
        this.readIncarnationWord = stored.get(ValueLayout.JAVA_LONG, ObjectLayout.INCARNATION_OFFSET);
        this.flags = flags;
    }

    /** Whether the commit changes the object (a write, an allocation or a free). */
    boolean written() {
        return flags != 0;
    }

    /** The incarnation word after the commit: the view's (objIncrementIncarnation), or the next free word. */
    long newIncarnationWord() {
        if ((flags & TxRecordDescriptor.FREED) != 0) {
            return readIncarnationWord + 1;
        }
        return buffer.stored().get(ValueLayout.JAVA_LONG, ObjectLayout.INCARNATION_OFFSET);
    }

    /** Writes this object's entry at {@code offset} of {@code record}; returns its length. */
    int putEntry(MemorySegment record, long offset) {
        int length = TxRecordDescriptor.putEntry(record, offset, address, readVersion, readIncarnationWord,
            newIncarnationWord(), size, flags);
        if ((flags & TxRecordDescriptor.WRITE) != 0) {
            ObjectLayout.toApplication(buffer.stored(), 0, record, offset + TxRecordDescriptor.ENTRY_DATA_OFFSET, size);
        }
        return length;
    }

    /** Length of this object's entry. */
    int entryLength() {
        return TxRecordDescriptor.entryLength(size, (flags & TxRecordDescriptor.WRITE) != 0);
    }
}
