package io.farm.bench.fabric;

import io.farm.core.config.ClusterConfig;
import io.farm.core.placement.PlacementRing;

import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;

/** The two-node cluster the fabric benchmark runs on. */
final class BenchCluster {
    private BenchCluster() {
    }

    /** Two nodes, one worker each, no backups (the benchmark reads one region), with their files in {@code dataDir}. */
    static ClusterConfig config(String name, String fabric, long regionSize, String idle, Path dataDir) {
        return ClusterConfig.builder()
            .name(name)
            .memberCount(2)
            .fabric(fabric)
            .regionSize(regionSize)
            .threads(1)
            .backups(0)
            .idleStrategy(idle)
            .dataDir(dataDir)
            .build();
    }

    /** A data region id whose primary is node 1, by the cluster's placement. */
    static int serverRegionId(ClusterConfig config) {
        PlacementRing ring = config.placement();
        return ring.regionIdWithPrimary(1, new SplittableRandom(42));
    }

    /** Closes every resource, in order, reporting failures after trying all. */
    static void closeAll(List<AutoCloseable> resources) throws Exception {
        Exception failure = null;
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
