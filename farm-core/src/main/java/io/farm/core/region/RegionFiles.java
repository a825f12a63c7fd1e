package io.farm.core.region;

import io.farm.os.HugePages;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Maps region files shared. A new file is extended to its size without writing it (sparse), so
 * its pages are populated lazily on first touch: a 2 GiB region costs nothing until used.
 *
 * <p>Asked for huge pages, a mapping is advised to use transparent huge pages
 * ({@link HugePages#advise}); where the system does not allow them, regions work the same with
 * base pages, and the first such region of the process says why on {@code System.err}.
 */
public final class RegionFiles {
    /** Smallest region size accepted. */
    public static final long MIN_REGION_SIZE = 4096;
    /** Largest region size accepted: offsets in a global address are 31-bit. */
    public static final long MAX_REGION_SIZE = 1L << 31;

    /** Set once the fallback to base pages has been reported: one message per process, not per region. */
    private static final AtomicBoolean BASE_PAGE_FALLBACK_REPORTED = new AtomicBoolean();

    private RegionFiles() {
    }

    /**
     * Checks that {@code size} is an accepted region size.
     *
     * @throws IllegalArgumentException naming what is accepted
     */
    public static long checkRegionSize(long size) {
        if (size < MIN_REGION_SIZE || size > MAX_REGION_SIZE || Long.bitCount(size) != 1) {
            throw new IllegalArgumentException("region size " + size + " is not accepted: it must be a power of two from "
                + MIN_REGION_SIZE + " (4 KiB) to " + MAX_REGION_SIZE + " (2 GiB)");
        }
        return size;
    }

    /**
     * Creates {@code file} as a sparse file of {@code size} bytes (it must not exist) and maps it.
     *
     * @throws UncheckedIOException if the file exists or cannot be created
     */
    public static MemorySegment createAndMap(Path file, long size, Arena arena) {
        return createAndMap(file, size, arena, false);
    }

    /**
     * Creates {@code file} as a sparse file of {@code size} bytes (it must not exist) and maps it,
     * advising huge pages for it if {@code hugePages}.
     *
     * @throws IllegalArgumentException if {@code size} is not an accepted region size
     * @throws UncheckedIOException     if the file exists or cannot be created
     */
    public static MemorySegment createAndMap(Path file, long size, Arena arena, boolean hugePages) {
        checkRegionSize(size);
        try {
            Files.createDirectories(file.getParent());
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                 StandardOpenOption.WRITE); RandomAccessFile extend = new RandomAccessFile(file.toFile(), "rw")) {
                // ftruncate makes the file `size` long without populating a page (and works on hugetlbfs).
                extend.setLength(size);
                return advised(channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena), hugePages);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create region file " + file + " of " + size + " bytes", e);
        }
    }

    /**
     * Maps an existing region file shared, read-write. The file must be exactly {@code size} bytes.
     *
     * @throws UncheckedIOException if the file is missing or has another size
     */
    public static MemorySegment mapExisting(Path file, long size, Arena arena) {
        return mapExisting(file, size, arena, false);
    }

    /**
     * Maps an existing region file shared, read-write, advising huge pages for it if
     * {@code hugePages}. The file must be exactly {@code size} bytes.
     *
     * @throws IllegalArgumentException if {@code size} is not an accepted region size
     * @throws UncheckedIOException     if the file is missing or has another size
     */
    public static MemorySegment mapExisting(Path file, long size, Arena arena, boolean hugePages) {
        checkRegionSize(size);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long actual = channel.size();
            if (actual != size) {
                throw new IOException("region file " + file + " has " + actual + " bytes, expected " + size);
            }
            return advised(channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena), hugePages);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot map region file " + file, e);
        }
    }

    private static MemorySegment advised(MemorySegment mapped, boolean hugePages) {
        if (hugePages) {
            HugePages.Advice advice = HugePages.advise(mapped);
            if (!advice.inEffect() && BASE_PAGE_FALLBACK_REPORTED.compareAndSet(false, true)) {
                System.err.println("farm: region files use " + advice.pageSize() / 1024 + " KiB pages, not huge pages: "
                    + advice.reason());
            }
        }
        return mapped;
    }
}
