package io.farm.bench;

import io.farm.core.Farm;
import io.farm.core.cluster.JvmProcess;
import io.farm.core.cluster.Node;
import io.farm.core.fabric.shm.ShmFabric;
import io.farm.core.config.ClusterConfig;
import io.farm.core.config.FabricKind;
import io.farm.hashtable.HashTables;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

/** {@code farm node}: one node process of a static cluster. */
@Command(name = "node", mixinStandardHelpOptions = true,
    description = {"Start one node process of a static cluster and serve until SIGTERM/Ctrl-C.",
        "The configuration file is what 'farm cluster' writes (cluster.properties in its data directory)."})
public final class NodeCommand implements Callable<Integer> {
    @Option(names = "--config", required = true, description = "cluster configuration (.properties)")
    Path config;

    @Option(names = "--id", required = true, description = "this node's id, 0..N-1")
    int id;

    @Option(names = "--peer-timeout", defaultValue = "60", description = "seconds to wait for every member (default ${DEFAULT-VALUE})")
    int peerTimeout;

    @Option(names = "--exit-on-stdin-end", description = "also stop when standard input ends (used by 'farm cluster')")
    boolean exitOnStdinEnd;

    @Override
    public Integer call() {
        ClusterConfig cluster = ClusterConfig.load(config);
        if (cluster.fabric() != FabricKind.SHM) {
            throw new IllegalArgumentException("cluster " + cluster.name() + " uses the " + cluster.fabric().id()
                + " fabric, which runs every node in one JVM: a node process needs fabric=shm (or use 'farm demo')");
        }
        if (id < 0 || id >= cluster.size()) {
            // Checked before the fabric opens, which would create the node's files.
            throw new IllegalArgumentException("--id " + id + " is not accepted: cluster " + cluster.name() + " has members 0.."
                + (cluster.size() - 1));
        }
        Node node = Node.start(cluster, id, ShmFabric.open(cluster.dataDir(), id));
        try {
            // The services and hashtables, attached before the peers are awaited: a member that
            // answers serves transactions, allocations and tables (e.g. 'farm ycsb --config').
            HashTables.attach(Farm.attach(node));
            System.err.println("farm: node " + id + " of cluster " + cluster.name() + " serves (services and hashtables"
                + " attached); waiting for all " + cluster.size() + " members");
            node.awaitPeers(Duration.ofSeconds(peerTimeout));
        } catch (RuntimeException e) {
            node.close();
            throw e;
        }
        System.err.println("farm: node " + id + " of cluster " + cluster.name() + " is up with " + cluster.threads()
            + " workers; all " + cluster.size() + " members answered pings");
        JvmProcess.announceReady("node " + id);
        NodeLifecycle.serveUntilStopped(node, exitOnStdinEnd);
        return 0;
    }
}
