package io.farm.os;

import java.lang.foreign.MemorySegment;

/**
 * The whole pages that hold a native segment: its address rounded down to a page boundary, and
 * the length from there to its end. Calls such as {@code madvise} and {@code msync} refuse an
 * address that is not page aligned, and a slice of a mapping rarely starts on a page.
 *
 * @param start  page-aligned address of the first page
 * @param length bytes from {@code start} to the end of the segment
 */
record PageRange(long start, long length) {
    /**
     * The pages of {@code segment}.
     *
     * @param what what the segment is for, to name in the exception
     * @throws IllegalArgumentException if {@code segment} is a heap segment
     */
    static PageRange of(MemorySegment segment, String what) {
        if (!segment.isNative()) {
            throw new IllegalArgumentException(what + " needs native memory (a mapped or allocated segment), not a heap "
                + "segment: " + segment);
        }
        long start = Libc.pageAlignDown(segment.address());
        return new PageRange(start, segment.address() + segment.byteSize() - start);
    }
}
