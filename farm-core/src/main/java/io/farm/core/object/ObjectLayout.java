package io.farm.core.object;

import io.farm.alloc.ObjectHeader;
import io.farm.alloc.SizeClasses;
import io.farm.core.fabric.DmaEmulation;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Layout of an object as it is stored in a region (DESIGN §6, FaRM NSDI'14 §3.5), and the
 * functions that convert it to and from the application's view, write it with the line-version
 * protocol and check a copy of it for consistency.
 *
 * <pre>
 *  header line (the object's first 64 bytes, at a multiple of 64)
 *   0              8                  16                                          64
 *  +--------------+------------------+--------------------------------------------+
 *  | version word | incarnation word |  application bytes 0 .. 47                 |
 *  +--------------+------------------+--------------------------------------------+
 *
 *  every further line k (k >= 1)
 *   0      2                                                                      64
 *  +------+-----------------------------------------------------------------------+
 *  | line |  application bytes 48 + 62 (k - 1) .. 48 + 62 k - 1                   |
 *  +------+-----------------------------------------------------------------------+
 *   line version: 16 bits, bits 2..17 of the version word, or BEING_WRITTEN (0xFFFF)
 *
 *  version word
 *   63                                                                   2 1    0
 *  +----------------------------------------------------------------------+------+
 *  |                        version (62 bits)                             | lock |
 *  +----------------------------------------------------------------------+------+
 *   lock: 0 unlocked, 1 locked for commit (lock-free reads still allowed), 2 exclusive
 *
 *  incarnation word: farm-alloc's format (ObjectHeader): 2 * incarnation + allocated
 * </pre>
 *
 * <ul>
 *   <li><b>line versions</b>: a line version is the low 16 bits of the version
 *       ({@link #lineVersion}). {@link #BEING_WRITTEN} is never a real line version: versions
 *       go up by {@link #nextVersion}, which skips every version whose low 16 bits are
 *       {@code 0xFFFF}. Line versions therefore repeat only after 65,535 commits of an object.</li>
 *   <li><b>consistency</b>: a reader copies the object with reads that are consistent per line
 *       with respect to the line's first 8 bytes (DESIGN §4.2, {@link DmaEmulation}). A copy
 *       is consistent when the header is not exclusively locked and every further line carries
 *       the header's line version ({@link #isConsistent}); {@link #commitWrite} guarantees that
 *       such a copy holds exactly one version's bytes, unless the 16-bit line versions wrapped
 *       during the read, which readers exclude by bounding a read's duration.</li>
 *   <li><b>application view</b>: the application never sees the version, incarnation or line
 *       version words: {@link #toApplication} and {@link #toStored} convert between the stored
 *       bytes and a contiguous application buffer.</li>
 * </ul>
 * Words are in the host's native byte order, like every word of a region.
 */
public final class ObjectLayout {
    /** Bytes per line; objects start on a line and occupy whole lines. */
    public static final int LINE = DmaEmulation.LINE;
    /** Offset of the version word (farm-alloc's {@link ObjectHeader#VERSION_OFFSET}). */
    public static final int VERSION_OFFSET = ObjectHeader.VERSION_OFFSET;
    /** Offset of the incarnation word (farm-alloc's {@link ObjectHeader#INCARNATION_OFFSET}). */
    public static final int INCARNATION_OFFSET = ObjectHeader.INCARNATION_OFFSET;
    /** Offset of the application bytes in the header line. */
    public static final int HEADER_DATA_OFFSET = 16;
    /** Application bytes in the header line. */
    public static final int HEADER_DATA = LINE - HEADER_DATA_OFFSET;
    /** Offset of the application bytes in every further line, after the line version. */
    public static final int LINE_DATA_OFFSET = Short.BYTES;
    /** Application bytes in every further line. */
    public static final int LINE_DATA = LINE - LINE_DATA_OFFSET;
    /** The line version of a line being written; never the line version of a real version. */
    public static final short BEING_WRITTEN = (short) 0xFFFF;

    /** Lock mode: unlocked. */
    public static final int UNLOCKED = 0;
    /** Lock mode: locked by a committing transaction; lock-free reads are still allowed. */
    public static final int LOCKED_FOR_COMMIT = 1;
    /** Lock mode: exclusive; the object is being written, lock-free reads retry. */
    public static final int EXCLUSIVE = 2;
    /** Bits of the version word that hold the lock mode. */
    public static final int LOCK_BITS = 2;
    /** Mask of the lock mode in the version word. */
    public static final long LOCK_MASK = (1L << LOCK_BITS) - 1;
    /** The largest version, 62 bits. */
    public static final long MAX_VERSION = -1L >>> LOCK_BITS;
    /**
     * The least time between two versions of one object: a writer installs at most one version
     * of an object per this many nanoseconds (a commit takes at least a lock, a write and an
     * unlock, and in the transaction protocol a message round trip). With it, line versions of
     * one object repeat at most once per {@code 65,535 * MIN_VERSION_INTERVAL_NANOS}, which bounds
     * how long a lock-free read may take ({@link LockFreeReads#MAX_READ_NANOS}).
     */
    public static final long MIN_VERSION_INTERVAL_NANOS = 1_000;
    /** The largest application size: what fits the largest size class. */
    public static final int MAX_APPLICATION_SIZE = largestApplicationSize(SizeClasses.MAX_SIZE);

    private static final int LINE_VERSION_MASK = 0xFFFF;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle SHORT = ValueLayout.JAVA_SHORT.varHandle();

    private ObjectLayout() {
    }

    /**
     * Stored size, in bytes (a multiple of {@value #LINE}), of an object of
     * {@code applicationSize} application bytes.
     *
     * @throws IllegalArgumentException if {@code applicationSize} is outside 0 .. {@link #MAX_APPLICATION_SIZE}
     */
    public static int storedSize(int applicationSize) {
        if (applicationSize < 0 || applicationSize > MAX_APPLICATION_SIZE) {
            throw new IllegalArgumentException(
                "application size " + applicationSize + " out of range: 0.." + MAX_APPLICATION_SIZE);
        }
        int further = Math.max(0, applicationSize - HEADER_DATA);
        return LINE * (1 + (further + LINE_DATA - 1) / LINE_DATA);
    }

    /**
     * The largest application size whose stored size is at most {@code storedSize}.
     *
     * @throws IllegalArgumentException if {@code storedSize} is not a positive multiple of {@value #LINE}
     */
    public static int largestApplicationSize(int storedSize) {
        if (storedSize < LINE || storedSize % LINE != 0) {
            throw new IllegalArgumentException("stored size " + storedSize + " is not a positive multiple of " + LINE);
        }
        return HEADER_DATA + (storedSize / LINE - 1) * LINE_DATA;
    }

    /** The version word of {@code version} in lock mode {@code lockMode}. */
    public static long versionWord(long version, int lockMode) {
        return version << LOCK_BITS | lockMode;
    }

    /** The version in a version word. */
    public static long version(long versionWord) {
        return versionWord >>> LOCK_BITS;
    }

    /** The lock mode in a version word: {@link #UNLOCKED}, {@link #LOCKED_FOR_COMMIT} or {@link #EXCLUSIVE}. */
    public static int lockMode(long versionWord) {
        return (int) (versionWord & LOCK_MASK);
    }

    /** The line version of a version word: bits 2..17, the low 16 bits of the version. */
    public static short lineVersion(long versionWord) {
        return (short) (versionWord >>> LOCK_BITS & LINE_VERSION_MASK);
    }

    /**
     * The version after {@code version}: {@code version + 1}, or {@code version + 2} when the low
     * 16 bits of {@code version + 1} are {@link #BEING_WRITTEN}'s, which no version may have.
     * Wraps to 0 after {@link #MAX_VERSION}; 62 bits do not wrap in practice.
     */
    public static long nextVersion(long version) {
        long next = version + 1 & MAX_VERSION;
        return (short) (next & LINE_VERSION_MASK) == BEING_WRITTEN ? next + 1 & MAX_VERSION : next;
    }

    /**
     * Copies the application bytes of the stored object at {@code storedOffset} of {@code stored}
     * to {@code application} at {@code applicationOffset}: {@code applicationSize} bytes, which the
     * object's stored size must hold.
     */
    public static void toApplication(MemorySegment stored, long storedOffset,
                                     MemorySegment application, long applicationOffset, int applicationSize) {
        int done = Math.min(applicationSize, HEADER_DATA);
        MemorySegment.copy(stored, storedOffset + HEADER_DATA_OFFSET, application, applicationOffset, done);
        long line = storedOffset + LINE;
        while (done < applicationSize) {
            int chunk = Math.min(LINE_DATA, applicationSize - done);
            MemorySegment.copy(stored, line + LINE_DATA_OFFSET, application, applicationOffset + done, chunk);
            done += chunk;
            line += LINE;
        }
    }

    /**
     * As {@link #toApplication(MemorySegment, long, MemorySegment, long, int)}, between heap
     * arrays: for readers that copied a whole stored object (or several) into a {@code byte[]}
     * with one bulk copy and decode it there, where each line costs a plain array copy.
     */
    public static void toApplication(byte[] stored, int storedOffset, byte[] application, int applicationOffset,
                                     int applicationSize) {
        int done = Math.min(applicationSize, HEADER_DATA);
        System.arraycopy(stored, storedOffset + HEADER_DATA_OFFSET, application, applicationOffset, done);
        int line = storedOffset + LINE;
        while (done < applicationSize) {
            int chunk = Math.min(LINE_DATA, applicationSize - done);
            System.arraycopy(stored, line + LINE_DATA_OFFSET, application, applicationOffset + done, chunk);
            done += chunk;
            line += LINE;
        }
    }

    /**
     * Copies {@code applicationSize} application bytes from {@code application} at
     * {@code applicationOffset} into the stored object at {@code storedOffset} of {@code stored},
     * with plain stores. Leaves the version, incarnation and line version words unchanged.
     */
    public static void toStored(MemorySegment application, long applicationOffset, int applicationSize,
                                MemorySegment stored, long storedOffset) {
        int done = Math.min(applicationSize, HEADER_DATA);
        MemorySegment.copy(application, applicationOffset, stored, storedOffset + HEADER_DATA_OFFSET, done);
        long line = storedOffset + LINE;
        while (done < applicationSize) {
            int chunk = Math.min(LINE_DATA, applicationSize - done);
            MemorySegment.copy(application, applicationOffset + done, stored, line + LINE_DATA_OFFSET, chunk);
            done += chunk;
            line += LINE;
        }
    }

    /**
     * Writes new application bytes into the object at {@code objectOffset} of {@code region}
     * and publishes them as {@code newVersion}, unlocked: the commit's write sequence. The caller
     * holds the object's {@link #EXCLUSIVE} lock (its version word is exclusive), so readers
     * reject the header line while its bytes change. In order:
     * <ol>
     *   <li>every further line's version is set to {@link #BEING_WRITTEN};</li>
     *   <li>store fence; the application bytes are written;</li>
     *   <li>store fence; every further line's version is set to {@code newVersion}'s (release);</li>
     *   <li>the version word is set to {@code newVersion}, unlocked (release).</li>
     * </ol>
     * A reader whose copy of a line has the new line version sees the line's new bytes; one whose
     * copy of a line has the old line version copied it before the line was marked. Writers of
     * one object call this at most once per {@link #MIN_VERSION_INTERVAL_NANOS}.
     *
     * @param storedSize the object's stored size, which must hold {@code applicationSize}
     * @throws IllegalArgumentException if the sizes do not fit, or {@code newVersion} is not a
     *                                  valid version (reserved low bits or more than 62 bits)
     */
    public static void commitWrite(MemorySegment region, long objectOffset, int storedSize,
                                   MemorySegment application, long applicationOffset, int applicationSize,
                                   long newVersion) {
        if (applicationSize > largestApplicationSize(storedSize) || applicationSize < 0) {
            throw new IllegalArgumentException("application size " + applicationSize
                + " does not fit stored size " + storedSize + ": 0.." + largestApplicationSize(storedSize));
        }
        if (newVersion < 0 || newVersion > MAX_VERSION || (short) newVersion == BEING_WRITTEN) {
            throw new IllegalArgumentException("version " + newVersion
                + " is not a version: 0.." + MAX_VERSION + " without low 16 bits 0xFFFF");
        }
        for (long line = objectOffset + LINE; line < objectOffset + storedSize; line += LINE) {
            SHORT.setOpaque(region, line, BEING_WRITTEN);
        }
        // Every line reads "being written" before any of its bytes change.
        VarHandle.storeStoreFence();
        toStored(application, applicationOffset, applicationSize, region, objectOffset);
        // The bytes are stored before any line shows the new version.
        VarHandle.storeStoreFence();
        long word = versionWord(newVersion, UNLOCKED);
        short lineVersion = lineVersion(word);
        for (long line = objectOffset + LINE; line < objectOffset + storedSize; line += LINE) {
            // Release: a reader that sees the new line version sees the line's new bytes.
            SHORT.setRelease(region, line, lineVersion);
        }
        // Release: last, so that a reader that sees the new version unlocked sees every line new.
        LONG.setRelease(region, objectOffset + VERSION_OFFSET, word);
    }

    /**
     * Whether a copy of a stored object (read line-consistently) is one version of it: its
     * version word is not {@link #EXCLUSIVE} (nor the unused lock mode 3), and every further
     * line's version equals the header's line version and none is {@link #BEING_WRITTEN}. The
     * incarnation is not checked here.
     *
     * @param copy       the copy, at {@code copyOffset}
     * @param storedSize the object's stored size, a positive multiple of {@value #LINE}
     */
    public static boolean isConsistent(MemorySegment copy, long copyOffset, int storedSize) {
        long word = copy.get(ValueLayout.JAVA_LONG_UNALIGNED, copyOffset + VERSION_OFFSET);
        int lockMode = lockMode(word);
        if (lockMode != UNLOCKED && lockMode != LOCKED_FOR_COMMIT) {
            return false;
        }
        short expected = lineVersion(word);
        if (expected == BEING_WRITTEN) {
            return false;
        }
        for (long line = copyOffset + LINE; line < copyOffset + storedSize; line += LINE) {
            if (copy.get(ValueLayout.JAVA_SHORT_UNALIGNED, line) != expected) {
                return false;
            }
        }
        return true;
    }
}
