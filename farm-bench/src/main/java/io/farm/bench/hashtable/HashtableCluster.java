package io.farm.bench.hashtable;

import io.farm.core.Farm;
import io.farm.core.cluster.EmbeddedCluster;
import io.farm.core.cluster.JvmProcess;
import io.farm.core.cluster.Node;
import io.farm.core.config.ClusterConfig;
import io.farm.core.config.FabricKind;
import io.farm.core.fabric.shm.ShmFabric;
import io.farm.core.region.RegionStore;
import io.farm.hashtable.HashTables;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The cluster of {@code farm bench hashtable}, with farm and hashtables attached to every member.
 * Node 0, the measuring node, always runs in this JVM. On {@code local} the other nodes do too
 * (one {@link EmbeddedCluster}); on {@code shm} each is a child process
 * ({@link HashtableBenchServerCommand}) that ends with this JVM, even a killed one (it watches its
 * standard input). {@link #close} stops every node and deletes the cluster's directory.
 */
final class HashtableCluster implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final ClusterConfig config;
    private final EmbeddedCluster embedded;
    private final Node measuring;
    private final List<JvmProcess> children;
    private final HashTables tables;

    private HashtableCluster(ClusterConfig config, EmbeddedCluster embedded, Node measuring, List<JvmProcess> children,
                             HashTables tables) {
        this.config = config;
        this.embedded = embedded;
        this.measuring = measuring;
        this.children = children;
        this.tables = tables;
    }

    /** A cluster of {@code nodes} members with {@code threads} workers each and one backup per region. */
    static ClusterConfig config(String name, String fabric, int nodes, int threads, String idle, long regionSize,
                                Path dataDir) {
        return ClusterConfig.builder()
            .name(name)
            .memberCount(nodes)
            .fabric(fabric)
            .threads(threads)
            .idleStrategy(idle)
            .backups(Math.min(1, nodes - 1))
            .regionSize(regionSize)
            .dataDir(dataDir)
            .build();
    }

    /** Starts every node of {@code config} and attaches farm and hashtables to them; returns once all answer. */
    static HashtableCluster start(ClusterConfig config) throws Exception {
        Files.createDirectories(config.dataDir());
        if (config.fabric() == FabricKind.LOCAL) {
            EmbeddedCluster embedded = EmbeddedCluster.start(config);
            try {
                List<HashTables> all = HashTables.attachAll(Farm.attachAll(embedded.nodes()));
                return new HashtableCluster(config, embedded, embedded.node(0), List.of(), all.getFirst());
            } catch (RuntimeException e) {
                embedded.close();
                throw e;
            }
        }
        Path configFile = config.dataDir().resolve("cluster.properties");
        config.store(configFile);
        List<JvmProcess> children = new ArrayList<>();
        Node measuring = null;
        try {
            for (int id = 1; id < config.size(); id++) {
                children.add(JvmProcess.start("hashtable benchmark node " + id, config.dataDir().resolve("node-" + id + ".log"),
                    List.of("-Xmx1g"), "io.farm.bench.FarmMain", List.of("bench", "hashtable-server",
                        "--config", configFile.toString(), "--id", Integer.toString(id))));
            }
            measuring = Node.start(config, 0, ShmFabric.open(config.dataDir(), 0));
            HashTables tables = HashTables.attach(Farm.attach(measuring));
            // A child announces itself once farm and hashtables are attached: then a table may be created.
            for (JvmProcess child : children) {
                child.awaitReady(START_TIMEOUT);
            }
            measuring.awaitPeers(START_TIMEOUT);
            return new HashtableCluster(config, null, measuring, children, tables);
        } catch (Exception | Error e) {
            if (measuring != null) {
                measuring.close();
            }
            children.forEach(JvmProcess::close);
            throw e;
        }
    }

    /** The configuration. */
    ClusterConfig config() {
        return config;
    }

    /** Node 0, in this JVM: the node whose workers load and measure. */
    Node measuring() {
        return measuring;
    }

    /** The hashtables of node 0. */
    HashTables tables() {
        return tables;
    }

    @Override
    public void close() {
        try {
            if (embedded != null) {
                embedded.close();
            } else {
                measuring.close();
                children.forEach(JvmProcess::close);
            }
        } finally {
            RegionStore.deleteTree(config.dataDir());
        }
    }
}
