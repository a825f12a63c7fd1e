package io.farm.alloc;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A region source for tests: new zero regions of a fixed size from one arena, ids 1, 2, ...,
 * completed at once on the calling thread. Records the hint of every request. Thread safe.
 * Closing it frees every region.
 */
final class TestRegions implements RegionSource, AutoCloseable {
    static final long REGION_SIZE = 4L << 20;

    private final Arena arena = Arena.ofShared();
    private final long regionSize;
    private final List<Integer> hints = new ArrayList<>();
    private int nextId = 1;
    private int limit = Integer.MAX_VALUE;

    TestRegions() {
        this(REGION_SIZE);
    }

    TestRegions(long regionSize) {
        this.regionSize = regionSize;
    }

    @Override
    public synchronized CompletionStage<AllocatorRegion> newRegion(int hintRegionId) {
        hints.add(hintRegionId);
        if (nextId > limit) {
            return CompletableFuture.failedFuture(new IllegalStateException("test region source: out of regions"));
        }
        return CompletableFuture.completedFuture(region());
    }

    /** A new zero region with the next id, not recorded as a request. */
    synchronized AllocatorRegion region() {
        return new AllocatorRegion(nextId++, arena.allocate(regionSize, 4096));
    }

    /** Refuses requests once {@code regions} regions were handed out. */
    synchronized void limit(int regions) {
        this.limit = regions;
    }

    /** The hint of each request so far. */
    synchronized List<Integer> hints() {
        return List.copyOf(hints);
    }

    @Override
    public void close() {
        arena.close();
    }
}
