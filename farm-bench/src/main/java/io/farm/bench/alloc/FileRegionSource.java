package io.farm.bench.alloc;

import io.farm.alloc.AllocatorRegion;
import io.farm.alloc.RegionSource;
import io.farm.core.addr.RegionId;
import io.farm.core.region.RegionFiles;

import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Regions for the allocator benchmark: sparse files mapped from a directory, as a node maps its
 * regions, without a cluster around them (the benchmark measures the allocators, and a region is
 * requested once per region size of allocations). Region ids are consecutive positions on ring 0.
 */
final class FileRegionSource implements RegionSource, AutoCloseable {
    private final Path dir;
    private final long regionSize;
    private final Arena arena = Arena.ofShared();
    private int nextPosition = 1;

    FileRegionSource(Path dir, long regionSize) {
        this.dir = dir;
        this.regionSize = RegionFiles.checkRegionSize(regionSize);
    }

    @Override
    public CompletionStage<AllocatorRegion> newRegion(int hintRegionId) {
        int regionId = RegionId.of(0, nextPosition++);
        Path file = dir.resolve("region-" + Integer.toHexString(regionId) + ".mem");
        return CompletableFuture.completedFuture(new AllocatorRegion(regionId, RegionFiles.createAndMap(file, regionSize, arena)));
    }

    /** Regions handed out so far. */
    int regions() {
        return nextPosition - 1;
    }

    @Override
    public void close() {
        arena.close();
    }
}
