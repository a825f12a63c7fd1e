package io.farm.core.cluster;

import io.farm.core.fabric.local.LocalNetwork;
import io.farm.core.config.ClusterConfig;
import io.farm.core.config.FabricKind;
import io.farm.core.region.RegionStore;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Every node of a cluster in this JVM over the {@code local} fabric: the default for the demo
 * and most tests. {@link #close()} stops every node and removes the cluster's data directory.
 */
public final class EmbeddedCluster implements AutoCloseable {
    private final ClusterConfig config;
    private final List<Node> nodes;

    private EmbeddedCluster(ClusterConfig config, List<Node> nodes) {
        this.config = config;
        this.nodes = Collections.unmodifiableList(nodes);
    }

    /**
     * Starts every member of {@code config} (which must use the local fabric) and waits until
     * each answers the others' pings.
     *
     * @throws IllegalArgumentException if the configuration names another fabric
     */
    public static EmbeddedCluster start(ClusterConfig config) {
        if (config.fabric() != FabricKind.LOCAL) {
            throw new IllegalArgumentException("an embedded cluster runs on the local fabric, not " + config.fabric().id()
                + ": set fabric=local");
        }
        LocalNetwork network = new LocalNetwork();
        List<Node> nodes = new ArrayList<>();
        try {
            for (int id = 0; id < config.size(); id++) {
                nodes.add(Node.start(config, id, network.attach(id)));
            }
            for (Node node : nodes) {
                node.awaitPeers(Duration.ofSeconds(30));
            }
        } catch (RuntimeException e) {
            closeAll(nodes, config, e);
            throw e;
        }
        return new EmbeddedCluster(config, nodes);
    }

    /** The configuration. */
    public ClusterConfig config() {
        return config;
    }

    /** Node {@code id}. */
    public Node node(int id) {
        return nodes.get(id);
    }

    /** Every node, by id. */
    public List<Node> nodes() {
        return nodes;
    }

    /** Stops every node and removes the data directory. */
    @Override
    public void close() {
        RuntimeException failure = closeAll(nodes, config, null);
        if (failure != null) {
            throw failure;
        }
    }

    private static RuntimeException closeAll(List<Node> nodes, ClusterConfig config, RuntimeException failure) {
        for (Node node : nodes) {
            try {
                node.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        RegionStore.deleteTree(config.dataDir());
        return failure;
    }
}
