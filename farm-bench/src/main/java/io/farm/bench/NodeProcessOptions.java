package io.farm.bench;

import io.farm.core.cluster.Node;
import io.farm.core.config.ClusterConfig;
import io.farm.core.config.FabricKind;
import io.farm.core.fabric.shm.ShmFabric;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/**
 * The options of every command that runs one node process of a static shm cluster
 * ({@code farm node}, the benchmarks' server nodes, the bank check's nodes): the cluster's
 * configuration file and this node's id, and the checks and start they share.
 */
public final class NodeProcessOptions {
    @Option(names = "--config", required = true, description = "cluster configuration (.properties)")
    Path config;

    @Option(names = "--id", required = true, description = "this node's id, 0..N-1")
    int id;

    /** This node's id. */
    public int id() {
        return id;
    }

    /**
     * The cluster's configuration, checked for a node process: the shm fabric, and this id a member.
     *
     * @throws IllegalArgumentException naming what is wrong, before any file is created
     */
    public ClusterConfig cluster() {
        return cluster(config, id, " (or use 'farm demo')");
    }

    /**
     * The configuration in {@code config}, checked for node {@code id}'s process as
     * {@link #cluster()} does; {@code alternative} ends the message refusing another fabric.
     *
     * @throws IllegalArgumentException naming what is wrong, before any file is created
     */
    public static ClusterConfig cluster(Path config, int id, String alternative) {
        ClusterConfig cluster = ClusterConfig.load(config);
        if (cluster.fabric() != FabricKind.SHM) {
            throw new IllegalArgumentException("cluster " + cluster.name() + " uses the " + cluster.fabric().id()
                + " fabric, which runs every node in one JVM: a node process needs fabric=shm" + alternative);
        }
        if (id < 0 || id >= cluster.size()) {
            // Checked before the fabric opens, which would create the node's files.
            throw new IllegalArgumentException("--id " + id + " is not accepted: cluster " + cluster.name() + " has members 0.."
                + (cluster.size() - 1));
        }
        return cluster;
    }

    /**
     * Starts this node of {@code cluster} over the shm fabric, silent: it answers its peers'
     * pings only once the command has attached what it serves and called {@link Node#announce()}.
     */
    public Node start(ClusterConfig cluster) {
        return start(cluster, id);
    }

    /** Starts node {@code id} of {@code cluster} over the shm fabric, silent (see {@link #start(ClusterConfig)}). */
    public static Node start(ClusterConfig cluster, int id) {
        return Node.startSilent(cluster, id, ShmFabric.open(cluster.dataDir(), id));
    }
}
