package io.farm.core.region;

import io.farm.core.addr.RegionId;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The regions one node holds, as files in its directory of the cluster's data directory:
 *
 * <pre>
 *  clusterDir/
 *    node-&lt;id&gt;/
 *      region-&lt;8 hex digits of the region id&gt;.mem     one file per region, sparse
 * </pre>
 *
 * Every process of the host can find a node's region files from (clusterDir, node, region id)
 * alone, which is how the shm fabric maps its peers' regions.
 */
public final class RegionStore implements AutoCloseable {
    private final Path clusterDir;
    private final int node;
    private final long regionSize;
    private final boolean hugePages;
    private final Map<Integer, Region> regions = new ConcurrentHashMap<>();
    /** One arena per region, so that {@link #delete(int)} can unmap one region. */
    private final Map<Integer, Arena> arenas = new ConcurrentHashMap<>();

    /**
     * @param clusterDir the cluster's data directory
     * @param node       this node's id
     * @param regionSize the size of data regions (a power of two, see {@link RegionFiles#checkRegionSize})
     */
    public RegionStore(Path clusterDir, int node, long regionSize) {
        this(clusterDir, node, regionSize, false);
    }

    /**
     * @param clusterDir the cluster's data directory
     * @param node       this node's id
     * @param regionSize the size of data regions (a power of two, see {@link RegionFiles#checkRegionSize})
     * @param hugePages  whether regions ask for huge pages (a fallback to normal pages is announced once)
     */
    public RegionStore(Path clusterDir, int node, long regionSize, boolean hugePages) {
        this.clusterDir = clusterDir;
        this.node = node;
        this.regionSize = RegionFiles.checkRegionSize(regionSize);
        this.hugePages = hugePages;
    }

    /** The directory of {@code node} in {@code clusterDir}. */
    public static Path nodeDir(Path clusterDir, int node) {
        return clusterDir.resolve("node-" + node);
    }

    /** The file of region {@code regionId} held by {@code node}. */
    public static Path fileOf(Path clusterDir, int node, int regionId) {
        return nodeDir(clusterDir, node).resolve(String.format(Locale.ROOT, "region-%08x.mem", regionId));
    }

    /** Creates and maps a new data region of the store's region size. */
    public Region create(int regionId) {
        return create(regionId, regionSize);
    }

    /**
     * Creates and maps a new region of {@code size} bytes (system regions may differ from the
     * data region size).
     *
     * @throws IllegalStateException if this store holds the region already
     */
    public Region create(int regionId, long size) {
        if (regions.containsKey(regionId)) {
            throw new IllegalStateException("node " + node + " holds region " + RegionId.toString(regionId) + " already");
        }
        Path file = fileOf(clusterDir, node, regionId);
        Arena arena = Arena.ofShared();
        try {
            Region region = new Region(regionId, RegionFiles.createAndMap(file, size, arena, hugePages), file);
            arenas.put(regionId, arena);
            regions.put(regionId, region);
            return region;
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    /**
     * Unmaps region {@code regionId} and deletes its file: the region is gone from this node. Its
     * memory must no longer be in use (deregister it from the fabric first).
     *
     * @throws IllegalArgumentException if this store holds no such region
     * @throws UncheckedIOException     if the file cannot be deleted (the region is unmapped all the same)
     */
    public void delete(int regionId) {
        Region region = regions.remove(regionId);
        if (region == null) {
            throw new IllegalArgumentException("node " + node + " holds no region " + RegionId.toString(regionId));
        }
        unmap(regionId);
        try {
            Files.deleteIfExists(region.file());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the file of " + region, e);
        }
    }

    /** The region with that id, or null. */
    public Region get(int regionId) {
        return regions.get(regionId);
    }

    /** The regions this store holds. */
    public Collection<Region> regions() {
        return Collections.unmodifiableCollection(regions.values());
    }

    /** Size of data regions. */
    public long regionSize() {
        return regionSize;
    }

    /** Unmaps every region; the files stay (they are the node's non-volatile memory). */
    @Override
    public void close() {
        regions.clear();
        for (Integer regionId : arenas.keySet()) {
            unmap(regionId);
        }
    }

    /** Closes the arena of a region, once: {@link #delete} and {@link #close} may race. */
    private void unmap(int regionId) {
        Arena arena = arenas.remove(regionId);
        if (arena != null) {
            arena.close();
        }
    }

    /** Unmaps every region and deletes this node's directory with its files. */
    public void closeAndDelete() {
        close();
        deleteTree(nodeDir(clusterDir, node));
    }

    /**
     * Deletes the region files {@code node} left in {@code clusterDir} (an earlier run that
     * crashed); other files of the node's directory stay. Returns how many were deleted.
     */
    public static int deleteRegionFiles(Path clusterDir, int node) {
        Path dir = nodeDir(clusterDir, node);
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        int deleted = 0;
        try (var files = Files.newDirectoryStream(dir, "region-*.mem")) {
            for (Path file : files) {
                Files.deleteIfExists(file);
                deleted++;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the region files in " + dir, e);
        }
        return deleted;
    }

    /** Deletes a directory tree, if it exists. */
    public static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Collections.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }
}
