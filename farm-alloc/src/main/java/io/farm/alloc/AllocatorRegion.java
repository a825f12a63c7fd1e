package io.farm.alloc;

import java.lang.foreign.MemorySegment;

/**
 * A region handed to this node's allocators by a {@link RegionSource}: its id and its memory
 * (zero when new). The allocators own the region's contents from then on: its first block holds
 * the block table, the rest holds blocks of objects.
 *
 * @param regionId the region id (farm-core's {@code RegionId} layout)
 * @param memory   the region's memory, a power of two of bytes, page aligned
 */
public record AllocatorRegion(int regionId, MemorySegment memory) {
}
