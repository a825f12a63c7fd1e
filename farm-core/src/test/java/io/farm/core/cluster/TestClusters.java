package io.farm.core.cluster;

import io.farm.core.config.ClusterConfig;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Small clusters and helpers shared by the node tests. */
final class TestClusters {
    /** Region size of the test clusters: 1 MiB keeps their files small. */
    static final long REGION_SIZE = 1 << 20;
    /** Generous bound for liveness waits: a wait that hits it means the behaviour is broken. */
    static final long LIVENESS_SECONDS = 30;

    private TestClusters() {
    }

    /** A cluster of {@code members} nodes with two workers each, 1 MiB regions, data in {@code dataDir}. */
    static ClusterConfig config(String name, int members, String fabric, Path dataDir) {
        return ClusterConfig.builder()
            .name(name)
            .memberCount(members)
            .fabric(fabric)
            .threads(2)
            .regionSize(REGION_SIZE)
            .dataDir(dataDir)
            .build();
    }

    /** The long at {@code offset} of the test pattern of region {@code regionId}: differs for every word and region. */
    static long pattern(int regionId, long offset) {
        long x = ((long) regionId << 32 ^ offset) * 0x9E3779B97F4A7C15L;
        return x ^ x >>> 31;
    }

    /** Fills {@code length} bytes from 0 of {@code memory} with the pattern of {@code regionId}. */
    static void fill(MemorySegment memory, int regionId, long length) {
        for (long offset = 0; offset < length; offset += Long.BYTES) {
            memory.set(ValueLayout.JAVA_LONG, offset, pattern(regionId, offset));
        }
    }

    /** Waits for a future that must complete; fails after the liveness bound. */
    static <T> T await(CompletableFuture<T> future) throws Exception {
        return future.get(LIVENESS_SECONDS, TimeUnit.SECONDS);
    }
}
