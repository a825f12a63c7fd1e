package io.farm.bench.hashtable;

import io.farm.bench.NodeLifecycle;
import io.farm.core.Farm;
import io.farm.core.cluster.JvmProcess;
import io.farm.core.cluster.Node;
import io.farm.core.config.ClusterConfig;
import io.farm.core.fabric.shm.ShmFabric;
import io.farm.hashtable.HashTables;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * A node process of {@code farm bench hashtable} on shm: farm and hashtables attached, it holds
 * shards and serves the mutations and message lookups shipped to it until stopped or until its
 * parent goes away (its standard input ends).
 */
@Command(name = "hashtable-server", hidden = true, mixinStandardHelpOptions = true,
    description = "A node of the hashtable benchmark (started by 'bench hashtable --fabric shm').")
public final class HashtableBenchServerCommand implements Callable<Integer> {
    @Option(names = "--config", required = true, description = "cluster configuration (.properties)")
    Path config;

    @Option(names = "--id", required = true, description = "this node's id")
    int id;

    @Override
    public Integer call() {
        ClusterConfig cluster = ClusterConfig.load(config);
        Node node = Node.start(cluster, id, ShmFabric.open(cluster.dataDir(), id));
        HashTables.attach(Farm.attach(node));
        JvmProcess.announceReady("hashtable-server node " + id);
        NodeLifecycle.serveUntilStopped(node, true);
        return 0;
    }
}
