package io.farm.core.region;

import io.farm.core.addr.RegionId;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * A region of farm's shared address space held by this node: a file mapped shared, sparse
 * and populated lazily, that outlives the process (the stand-in for FaRM's non-volatile DRAM).
 *
 * @param id      the region id ({@link RegionId})
 * @param memory  the mapped memory, {@code size} bytes, page aligned
 * @param file    the backing file; other processes of the same host may map it too
 */
public record Region(int id, MemorySegment memory, Path file) {
    /** Size of the region in bytes (a power of two). */
    public long size() {
        return memory.byteSize();
    }

    @Override
    public String toString() {
        return "Region[" + RegionId.toString(id) + ", " + size() + " bytes, " + file + "]";
    }
}
