package io.farm.alloc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Layout of the header words of an object that farm-alloc owns (DESIGN §6, FaRM NSDI'14 §3.3,
 * §3.5). An object of size class {@code c} occupies {@code SizeClasses.sizeOf(c)} bytes starting
 * on a {@value #ALIGNMENT}-byte boundary; its first cache line is its header.
 *
 * <pre>
 *  an object, at a multiple of 64 bytes
 *   0              8                  16                                64
 *  +--------------+------------------+----------------------------------+----------------
 *  | version word | incarnation word |  rest of the header line         | further lines
 *  +--------------+------------------+----------------------------------+----------------
 *   transactions    farm-alloc          the object layout (farm-core)
 *
 *  incarnation word
 *   63                                                            1   0
 *  +---------------------------------------------------------------+---+
 *  |                     incarnation (63 bits)                      | A |
 *  +---------------------------------------------------------------+---+
 *   A = 1: allocated.   word = 2 * incarnation + A
 * </pre>
 *
 * <ul>
 *   <li><b>version word</b>: belongs to transactions (the version and its lock-mode bits). The
 *       allocators only zero it when they format a block for a new size class, when no reader
 *       of an earlier epoch is left (the epoch rule of {@link BlockAllocator}).</li>
 *   <li><b>incarnation word</b>: a counter that is even while the slot is free and odd while it
 *       holds an object. Allocation adds one (free to allocated, the incarnation unchanged);
 *       free adds one (allocated to free, the incarnation incremented, FaRM's rule), so a fat
 *       pointer that carries the incarnation of an object never matches the slot once that
 *       object has been freed. A new slot starts at incarnation 0; a slot formatted over memory
 *       that held another size class starts above every incarnation that memory has held (see
 *       {@link BlockAllocator}), so a fat pointer to an older object at the same address never
 *       matches either. 63 bits do not wrap.</li>
 *   <li><b>ordering</b>: other threads and remote readers (one-sided reads) read the
 *       incarnation word, so it is stored with release after anything written before it, and
 *       read with acquire; a free is a compare-and-set, so that two frees of one object cannot
 *       both succeed.</li>
 * </ul>
 * Words are in the host's native byte order, like every word of a region.
 */
public final class ObjectHeader {
    /** Objects start on a multiple of this many bytes (a cache line). */
    public static final int ALIGNMENT = 64;
    /** Offset of the version word in an object (owned by transactions). */
    public static final int VERSION_OFFSET = 0;
    /** Offset of the incarnation word in an object. */
    public static final int INCARNATION_OFFSET = 8;
    /** The allocated bit of the incarnation word. */
    public static final long ALLOCATED_BIT = 1L;

    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    private ObjectHeader() {
    }

    /**
     * The incarnation word of the object at {@code objectOffset} of {@code region}, read with
     * acquire (so the object's contents written before it was published are visible).
     */
    public static long incarnationWord(MemorySegment region, long objectOffset) {
        return (long) WORD.getAcquire(region, objectOffset + INCARNATION_OFFSET);
    }

    /** Whether an incarnation word says its slot holds an object. */
    public static boolean isAllocated(long incarnationWord) {
        return (incarnationWord & ALLOCATED_BIT) != 0;
    }

    /** The incarnation in an incarnation word: the number of times the slot's objects were freed. */
    public static long incarnation(long incarnationWord) {
        return incarnationWord >>> 1;
    }

    /** The incarnation word of a free slot at incarnation {@code incarnation}. */
    public static long freeWord(long incarnation) {
        return incarnation << 1;
    }

    /**
     * Marks the free slot at {@code objectOffset} allocated. The caller (the slot's only
     * allocator) knows the slot is free and reads {@code freeWord} itself: the store is a release,
     * so that a reader that sees the allocated bit (acquire) also sees what was written before.
     */
    static void markAllocated(MemorySegment region, long objectOffset, long freeWord) {
        WORD.setRelease(region, objectOffset + INCARNATION_OFFSET, freeWord + 1);
    }

    /**
     * Marks the object at {@code objectOffset} free, incrementing its incarnation, if its
     * incarnation word is still {@code allocatedWord}: a compare-and-set (volatile), so that of
     * two racing frees of one object only one succeeds.
     *
     * @return whether this call freed the object
     */
    static boolean markFree(MemorySegment region, long objectOffset, long allocatedWord) {
        return WORD.compareAndSet(region, objectOffset + INCARNATION_OFFSET, allocatedWord, allocatedWord + 1);
    }

    /**
     * Formats a slot of a block being given a new size class: version word zero, incarnation word
     * free at {@code incarnation}. Both stores are releases, in that order.
     */
    static void format(MemorySegment region, long objectOffset, long incarnation) {
        WORD.setRelease(region, objectOffset + VERSION_OFFSET, 0L);
        WORD.setRelease(region, objectOffset + INCARNATION_OFFSET, freeWord(incarnation));
    }
}
