package io.farm.core.tx;

import io.farm.alloc.ObjectHeader;
import io.farm.core.object.ObjectLayout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The primary's side of an object's commit lock, in its version word (DESIGN §6-7): lock at the
 * version a transaction read, with compare-and-set; install the new value and unlock; or unlock
 * without change. Two lock modes (FaRM NSDI'14 §3.4):
 * <ul>
 *   <li>{@link ObjectLayout#EXCLUSIVE}, taken by a distributed transaction's LOCK record: its
 *       commit may be reported before the primary installs, so neither lock-free reads nor
 *       transactional reads may see the old value meanwhile; they retry until the install;</li>
 *   <li>{@link ObjectLayout#LOCKED_FOR_COMMIT}, taken by a single-machine transaction, which
 *       reports its commit only after installing: readers go on reading the old value, which is
 *       still the latest committed one, until the primary upgrades to exclusive just before
 *       writing.</li>
 * </ul>
 * Validation accepts an object only unlocked: a lock of either mode is another transaction
 * committing over what was read.
 */
final class ObjectLocks {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private ObjectLocks() {
    }

    /**
     * Locks the object at {@code offset} of {@code region} in {@code mode} if it is unlocked at
     * {@code readVersion} and still the incarnation read ({@code readIncarnationWord}, allocated);
     * the compare-and-set is volatile, so of two lockers one wins.
     *
     * @return {@link TxRecordDescriptor#LOCKED}, {@link TxRecordDescriptor#LOCK_HELD},
     * {@link TxRecordDescriptor#VERSION_CHANGED} or {@link TxRecordDescriptor#OBJECT_FREED}
     */
    static int lock(MemorySegment region, long offset, long readVersion, long readIncarnationWord, int mode) {
        long expected = ObjectLayout.versionWord(readVersion, ObjectLayout.UNLOCKED);
        long witness = (long) LONG.compareAndExchange(region, offset + ObjectLayout.VERSION_OFFSET, expected,
            ObjectLayout.versionWord(readVersion, mode));
        if (witness != expected) {
            return ObjectLayout.lockMode(witness) != ObjectLayout.UNLOCKED ? TxRecordDescriptor.LOCK_HELD
                : TxRecordDescriptor.VERSION_CHANGED;
        }
        // Read after the lock (the CAS is a full fence). A transaction frees only under the lock; an
        // object freed and allocated again outside transactions shows another incarnation.
        if (ObjectHeader.incarnationWord(region, offset) != readIncarnationWord) {
            unlock(region, offset, readVersion);
            return TxRecordDescriptor.OBJECT_FREED;
        }
        return TxRecordDescriptor.LOCKED;
    }

    /** Unlocks the object at {@code offset}, locked at {@code readVersion}, without change (release). */
    static void unlock(MemorySegment region, long offset, long readVersion) {
        LONG.setRelease(region, offset + ObjectLayout.VERSION_OFFSET,
            ObjectLayout.versionWord(readVersion, ObjectLayout.UNLOCKED));
    }

    /**
     * Upgrades this worker's {@link ObjectLayout#LOCKED_FOR_COMMIT} lock at {@code readVersion} to
     * {@link ObjectLayout#EXCLUSIVE}: from now lock-free readers retry. Volatile, so the bytes
     * written next are not seen before it.
     */
    static void makeExclusive(MemorySegment region, long offset, long readVersion) {
        LONG.setVolatile(region, offset + ObjectLayout.VERSION_OFFSET,
            ObjectLayout.versionWord(readVersion, ObjectLayout.EXCLUSIVE));
    }

    /**
     * Installs a new value on an exclusively locked object and unlocks it at the next version:
     * the incarnation word first (plain: the exclusive lock keeps readers off the header line),
     * then the line-version write sequence of {@link ObjectLayout#commitWrite}, whose last store
     * (release) unlocks.
     *
     * @param storedSize the object's stored size
     * @return the new version
     */
    static long install(MemorySegment region, long offset, int storedSize, long readVersion, long incarnationWord,
                        MemorySegment value, long valueOffset, int size) {
        long newVersion = ObjectLayout.nextVersion(readVersion);
        region.set(ValueLayout.JAVA_LONG, offset + ObjectLayout.INCARNATION_OFFSET, incarnationWord);
        ObjectLayout.commitWrite(region, offset, storedSize, value, valueOffset, size, newVersion);
        return newVersion;
    }

    /** Unlocks an exclusively locked object at the next version without writing its bytes (a free); returns it. */
    static long bumpAndUnlock(MemorySegment region, long offset, long readVersion) {
        long newVersion = ObjectLayout.nextVersion(readVersion);
        LONG.setRelease(region, offset + ObjectLayout.VERSION_OFFSET,
            ObjectLayout.versionWord(newVersion, ObjectLayout.UNLOCKED));
        return newVersion;
    }

    /**
     * Makes the header of a new array's element at {@code offset} (inside the array's one
     * allocation, which the caller just allocated): the array's {@code incarnationWord} first
     * (release), then the version word moved past whatever it held, unlocked, by compare-and-set.
     * The word may be any bytes of the slot's former life, lock bits included, so they are not
     * waited for: a stale locker (a transaction holding an address of the former life) sees the
     * new incarnation and fails; if its unlock lands after this store and restores its version,
     * the element's version differs from the one returned and the allocating transaction's own
     * lock fails as a conflict, which is retried. Returns the element's version.
     */
    static long formatElement(MemorySegment region, long offset, long incarnationWord) {
        LONG.setRelease(region, offset + ObjectLayout.INCARNATION_OFFSET, incarnationWord);
        while (true) {
            long word = versionWord(region, offset);
            long version = ObjectLayout.nextVersion(ObjectLayout.version(word));
            if (LONG.compareAndSet(region, offset + ObjectLayout.VERSION_OFFSET, word,
                ObjectLayout.versionWord(version, ObjectLayout.UNLOCKED))) {
                return version;
            }
        }
    }

    /** The version word of the object at {@code offset}, read with acquire. */
    static long versionWord(MemorySegment region, long offset) {
        return (long) LONG.getAcquire(region, offset + ObjectLayout.VERSION_OFFSET);
    }
}
