package io.farm.alloc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Layout of an allocator region: how the block allocator cuts a region into blocks and where it
 * keeps their states (FaRM NSDI'14 §3.3, DESIGN §8). One instance per block size.
 *
 * <pre>
 *  a region of R bytes (at most 2 GiB), n = R / B blocks of B bytes (B a multiple of 1 MiB, n &gt;= 2)
 *   0             B              2B                        nB               R
 *  +-------------+--------------+--------- ... ----------+----------------+
 *  |   block 0   |   block 1    |                        |  tail, unused  |
 *  |   (table)   |  (objects)   |                        |  (&lt; B bytes)   |
 *  +-------------+--------------+--------- ... ----------+----------------+
 *
 *  block 0
 *   0         8            12            16          64                64 + 8n        B
 *  +---------+------------+-------------+-----------+-----------------+------ ... ---+
 *  |  magic  | block size | block count |  unused   |  block table:   |    unused    |
 *  |         |  B, bytes  |      n      |  (zero)   |  n state words  |    (zero)    |
 *  +---------+------------+-------------+-----------+-----------------+------ ... ---+
 *                                                     word i (at 64 + 8i) is the
 *                                                     state of block i (BlockState)
 * </pre>
 *
 * <ul>
 *   <li>A new region is zero, and a zero state word is {@link BlockState#FREE}: formatting it
 *       writes block 0's state ({@link BlockState#TABLE}), block size and count, then the magic
 *       with release. A reader (a rebuild) that reads the magic with acquire sees the rest.</li>
 *   <li>State words are written with release and read with acquire: the block allocator writes
 *       them, a rebuild or an audit reads them.</li>
 *   <li>The table always fits in block 0: a region has at most 2 GiB / 1 MiB = 2048 blocks, so
 *       the header and table take at most 64 + 16 KiB of a block of at least 1 MiB.</li>
 *   <li>Blocks 1 .. n-1 hold objects ({@link ObjectHeader}), each block one size class.</li>
 * </ul>
 * Words are in the host's native byte order.
 */
public final class RegionLayout {
    /** Block sizes are multiples of this (1 MiB). */
    public static final int BLOCK_GRANULE = 1 << 20;
    /** The default block size (1 MiB). */
    public static final int DEFAULT_BLOCK_SIZE = BLOCK_GRANULE;
    /** Largest region size: offsets are non-negative 32-bit ints ({@link ObjectAddress}). */
    public static final long MAX_REGION_SIZE = 1L << 31;
    /** Fewest blocks a region may have: the table block and one block of objects. */
    public static final int MIN_BLOCKS = 2;
    /** "FARMBLKT" in ASCII, read as a little-endian long: block 0 of a formatted region starts with it. */
    public static final long MAGIC = 0x544B_4C42_4D52_4146L;

    /** Offset of the magic in block 0. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the block size (int) in block 0. */
    public static final int BLOCK_SIZE_OFFSET = 8;
    /** Offset of the block count (int) in block 0. */
    public static final int BLOCK_COUNT_OFFSET = 12;
    /** Offset of the block table (state word of block 0) in block 0. */
    public static final int TABLE_OFFSET = 64;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final int blockSize;

    /**
     * A layout with blocks of {@code blockSize} bytes.
     *
     * @throws IllegalArgumentException unless {@code blockSize} is a positive multiple of 1 MiB
     *                                  of at most 1 GiB (a 2 GiB region must hold 2 blocks)
     */
    public RegionLayout(int blockSize) {
        if (blockSize <= 0 || blockSize % BLOCK_GRANULE != 0 || blockSize > MAX_REGION_SIZE / MIN_BLOCKS) {
            throw new IllegalArgumentException("block size " + blockSize + " is not valid: a block is a multiple of "
                + BLOCK_GRANULE + " bytes (1 MiB), at most " + MAX_REGION_SIZE / MIN_BLOCKS + " (1 GiB)");
        }
        this.blockSize = blockSize;
    }

    /** The size of a block in bytes. */
    public int blockSize() {
        return blockSize;
    }

    /**
     * The number of blocks of a region of {@code regionSize} bytes, block 0 included.
     *
     * @throws IllegalArgumentException if the region is larger than 2 GiB or holds fewer than
     *                                  {@value #MIN_BLOCKS} blocks
     */
    public int blockCount(long regionSize) {
        if (regionSize > MAX_REGION_SIZE || regionSize < (long) MIN_BLOCKS * blockSize) {
            throw new IllegalArgumentException("region of " + regionSize + " bytes cannot be cut into blocks of "
                + blockSize + " bytes: a region holds at least " + MIN_BLOCKS + " blocks (the block table and one"
                + " block of objects) and at most " + MAX_REGION_SIZE + " bytes (2 GiB)");
        }
        return (int) (regionSize / blockSize);
    }

    /** The offset of block {@code index} in its region. */
    public int blockOffset(int index) {
        return index * blockSize;
    }

    /** The block that holds {@code offset}; may be past the last block (the tail). */
    public int blockIndex(int offset) {
        return offset / blockSize;
    }

    /** Slots of size class {@code sizeClass} in one block. */
    public int slotsPerBlock(int sizeClass) {
        return blockSize / SizeClasses.sizeOf(sizeClass);
    }

    /**
     * Checks that {@code memory} can be a region with this layout: a native segment aligned to
     * {@value ObjectHeader#ALIGNMENT} bytes whose size {@link #blockCount(long)} accepts.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public void checkRegionMemory(int regionId, MemorySegment memory) {
        if (!memory.isNative()) {
            throw new IllegalArgumentException("region 0x" + Integer.toHexString(regionId)
                + ": memory must be a native segment (a mapped file or an arena's allocation), not a heap array");
        }
        if (memory.address() % ObjectHeader.ALIGNMENT != 0) {
            throw new IllegalArgumentException("region 0x" + Integer.toHexString(regionId) + ": memory at 0x"
                + Long.toHexString(memory.address()) + " is not aligned to " + ObjectHeader.ALIGNMENT + " bytes");
        }
        blockCount(memory.byteSize());
    }

    /** Whether block 0 of {@code region} starts with the {@link #MAGIC} (read with acquire). */
    public static boolean isFormatted(MemorySegment region) {
        return (long) LONG.getAcquire(region, (long) MAGIC_OFFSET) == MAGIC;
    }

    /**
     * Formats a new, zero region: block 0's state, block size and count, then the magic (release).
     *
     * @throws IllegalArgumentException if the region is formatted already or its table is not zero
     */
    void format(int regionId, MemorySegment region) {
        int blocks = blockCount(region.byteSize());
        if ((long) LONG.getAcquire(region, (long) MAGIC_OFFSET) != 0) {
            throw new IllegalArgumentException("region 0x" + Integer.toHexString(regionId)
                + " is not new: its block 0 has a header (rebuild it with adoptRegion instead)");
        }
        for (int i = 0; i < blocks; i++) {
            if (blockState(region, i) != BlockState.FREE_WORD) {
                throw new IllegalArgumentException("region 0x" + Integer.toHexString(regionId)
                    + " is not new: block table word " + i + " is not zero (a new region must be zero)");
            }
        }
        setBlockState(region, 0, BlockState.TABLE_WORD);
        region.set(ValueLayout.JAVA_INT, BLOCK_SIZE_OFFSET, blockSize);
        region.set(ValueLayout.JAVA_INT, BLOCK_COUNT_OFFSET, blocks);
        LONG.setRelease(region, (long) MAGIC_OFFSET, MAGIC);
    }

    /**
     * What {@link #format} writes: block 0 from its start through the state word of block 0
     * (a view of {@code region}).
     */
    static MemorySegment formatted(MemorySegment region) {
        return region.asSlice(0, TABLE_OFFSET + Long.BYTES);
    }

    /** The offset in its region of the state word of block {@code index}. */
    public static int stateWordOffset(int index) {
        return TABLE_OFFSET + Long.BYTES * index;
    }

    /** The state word of block {@code index} as 8 bytes of {@code region} (a view of it). */
    static MemorySegment stateWord(MemorySegment region, int index) {
        return region.asSlice(stateWordOffset(index), Long.BYTES);
    }

    /** The block size recorded in a formatted region. */
    public static int recordedBlockSize(MemorySegment region) {
        return region.get(ValueLayout.JAVA_INT, BLOCK_SIZE_OFFSET);
    }

    /** The block count recorded in a formatted region. */
    public static int recordedBlockCount(MemorySegment region) {
        return region.get(ValueLayout.JAVA_INT, BLOCK_COUNT_OFFSET);
    }

    /** The state word of block {@code index} (acquire). */
    public static long blockState(MemorySegment region, int index) {
        return (long) LONG.getAcquire(region, (long) stateWordOffset(index));
    }

    /** Stores the state word of block {@code index} (release). */
    static void setBlockState(MemorySegment region, int index, long word) {
        LONG.setRelease(region, (long) stateWordOffset(index), word);
    }
}
