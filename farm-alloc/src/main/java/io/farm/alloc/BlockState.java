package io.farm.alloc;

/**
 * Layout of the 8-byte state word of a block, one per block in the block table of its region
 * ({@link RegionLayout}). The table lives in region memory, so the state of every block is
 * replicated with the region and a rebuild after failure reads it back (FaRM NSDI'14 §3.3).
 *
 * <pre>
 *   63        56 55        48 47                                                0
 *  +------------+------------+---------------------------------------------------+
 *  |    kind    | size class |                     payload                       |
 *  +------------+------------+---------------------------------------------------+
 *
 *   kind          size class   payload
 *   0 FREE        0            0                    never held objects: the whole word is 0,
 *                                                   so a zeroed table is all free
 *   1 TABLE       0            0                    block 0: the region header and this table
 *   2 SLAB        c            owner (bits 15..0)   holds objects of class c, allocated by the
 *                                                   slab allocator with id owner; bits 47..16 zero
 *   3 RELEASED    c            epoch (48 bits)      every object freed, in epoch at the latest;
 *                                                   its slots still hold valid class-c headers
 * </pre>
 *
 * <ul>
 *   <li>A RELEASED block may be given to any slab for class {@code c} at once: its headers are
 *       valid for that class (type stability, FaRM §3.5). For another class it must wait until
 *       {@link ReclamationEpochs#safe()} has reached {@code epoch}, because a lock-free reader
 *       of an earlier epoch may still read it as class-{@code c} objects.</li>
 *   <li>The owner is recorded so that a rebuild gives each block back to the slab allocator
 *       that had it. Every object of a SLAB block has its allocated bit in its header
 *       ({@link ObjectHeader}); that is the rest of what a rebuild needs.</li>
 * </ul>
 */
public final class BlockState {
    /** Kind: never held objects. */
    public static final int FREE = 0;
    /** Kind: block 0, the region header and block table. */
    public static final int TABLE = 1;
    /** Kind: holds objects of one size class for one slab allocator. */
    public static final int SLAB = 2;
    /** Kind: all its objects were freed; waits for reuse. */
    public static final int RELEASED = 3;

    /** The state word of a free block. */
    public static final long FREE_WORD = 0L;
    /** The state word of block 0. */
    public static final long TABLE_WORD = (long) TABLE << 56;
    /** Largest slab allocator id a state word can name. */
    public static final int MAX_OWNER = 0xFFFF;
    /** Largest epoch a state word can hold. */
    public static final long MAX_EPOCH = (1L << 48) - 1;

    private static final int KIND_SHIFT = 56;
    private static final int CLASS_SHIFT = 48;
    private static final long PAYLOAD_MASK = MAX_EPOCH;

    private BlockState() {
    }

    /** The state word of a block holding class {@code sizeClass} objects for slab allocator {@code owner}. */
    public static long slab(int sizeClass, int owner) {
        checkClass(sizeClass);
        if (owner < 0 || owner > MAX_OWNER) {
            throw new IllegalArgumentException("slab allocator id " + owner + " out of range: 0.." + MAX_OWNER);
        }
        return (long) SLAB << KIND_SHIFT | (long) sizeClass << CLASS_SHIFT | owner;
    }

    /** The state word of a block whose class {@code sizeClass} objects were all freed, the last in {@code epoch}. */
    public static long released(int sizeClass, long epoch) {
        checkClass(sizeClass);
        if (epoch < 0 || epoch > MAX_EPOCH) {
            throw new IllegalArgumentException("epoch " + epoch + " out of range: 0.." + MAX_EPOCH
                + " (48 bits of a block state word)");
        }
        return (long) RELEASED << KIND_SHIFT | (long) sizeClass << CLASS_SHIFT | epoch;
    }

    /** The kind of a state word: {@link #FREE}, {@link #TABLE}, {@link #SLAB} or {@link #RELEASED}. */
    public static int kind(long word) {
        return (int) (word >>> KIND_SHIFT);
    }

    /** The size class of a SLAB or RELEASED word. */
    public static int sizeClass(long word) {
        return (int) (word >>> CLASS_SHIFT) & 0xFF;
    }

    /** The owning slab allocator of a SLAB word. */
    public static int owner(long word) {
        return (int) (word & MAX_OWNER);
    }

    /** The epoch of a RELEASED word: its last object was freed in this epoch or earlier. */
    public static long epoch(long word) {
        return word & PAYLOAD_MASK;
    }

    /** Whether {@code word} is a state word this layout can produce. */
    public static boolean isValid(long word) {
        return switch (kind(word)) {
            case FREE -> word == FREE_WORD;
            case TABLE -> word == TABLE_WORD;
            case SLAB -> (word & PAYLOAD_MASK & ~(long) MAX_OWNER) == 0;
            case RELEASED -> true;
            default -> false;
        };
    }

    /** Human-readable form, e.g. {@code SLAB(class 3, owner 1)}. */
    public static String toString(long word) {
        if (!isValid(word)) {
            return "invalid(0x" + Long.toHexString(word) + ")";
        }
        return switch (kind(word)) {
            case FREE -> "FREE";
            case TABLE -> "TABLE";
            case SLAB -> "SLAB(class " + sizeClass(word) + ", owner " + owner(word) + ")";
            default -> "RELEASED(class " + sizeClass(word) + ", epoch " + epoch(word) + ")";
        };
    }

    private static void checkClass(int sizeClass) {
        if (sizeClass < 0 || sizeClass >= SizeClasses.COUNT) {
            throw new IllegalArgumentException("size class " + sizeClass + " out of range: 0.." + (SizeClasses.COUNT - 1));
        }
    }
}
