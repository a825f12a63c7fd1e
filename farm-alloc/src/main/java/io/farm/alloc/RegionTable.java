package io.farm.alloc;

import java.util.Arrays;

/**
 * An immutable map from region id to region, replaced as a whole when a region is added, so
 * that allocating and freeing threads look regions up without a lock and without allocating
 * (a binary search over sorted ids). Published through a volatile field of the block allocator.
 */
final class RegionTable {
    static final RegionTable EMPTY = new RegionTable(new int[0], new RegionBlocks[0]);

    private final int[] ids;
    private final RegionBlocks[] regions;

    private RegionTable(int[] ids, RegionBlocks[] regions) {
        this.ids = ids;
        this.regions = regions;
    }

    /** The region with id {@code regionId}, or null. */
    RegionBlocks find(int regionId) {
        int at = Arrays.binarySearch(ids, regionId);
        return at >= 0 ? regions[at] : null;
    }

    /** A table with {@code region} added; its id must be new. */
    RegionTable with(RegionBlocks region) {
        int at = -Arrays.binarySearch(ids, region.regionId) - 1;
        int[] newIds = new int[ids.length + 1];
        RegionBlocks[] newRegions = new RegionBlocks[ids.length + 1];
        System.arraycopy(ids, 0, newIds, 0, at);
        System.arraycopy(regions, 0, newRegions, 0, at);
        newIds[at] = region.regionId;
        newRegions[at] = region;
        System.arraycopy(ids, at, newIds, at + 1, ids.length - at);
        System.arraycopy(regions, at, newRegions, at + 1, ids.length - at);
        return new RegionTable(newIds, newRegions);
    }

    int size() {
        return ids.length;
    }

    /** The regions in increasing id order. */
    RegionBlocks[] regions() {
        return regions.clone();
    }
}
