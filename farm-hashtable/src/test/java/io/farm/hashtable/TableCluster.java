package io.farm.hashtable;

import io.farm.core.Farm;
import io.farm.core.cluster.EmbeddedCluster;
import io.farm.core.config.ClusterConfig;

import java.nio.file.Path;
import java.util.List;

/**
 * The cluster of the hashtable tests: 3 nodes in this JVM (local fabric), 2 backups, 2 workers,
 * 16 MiB regions, with farm and hashtables attached to every node.
 *
 * @param cluster the nodes; closing it removes the data directory
 * @param tables  the hashtables of node 0, 1 and 2
 */
record TableCluster(EmbeddedCluster cluster, List<HashTables> tables) implements AutoCloseable {
    static final int NODES = 3;
    static final int WORKERS = 2;

    /** Starts the cluster named {@code name} with its files under {@code dataDir}. */
    static TableCluster start(String name, Path dataDir) {
        EmbeddedCluster cluster = EmbeddedCluster.start(ClusterConfig.builder().name(name).memberCount(NODES).backups(2)
            .fabric("local").threads(WORKERS).regionSize(16 << 20).dataDir(dataDir).build());
        return new TableCluster(cluster, HashTables.attachAll(Farm.attachAll(cluster.nodes())));
    }

    @Override
    public void close() {
        cluster.close();
    }
}
