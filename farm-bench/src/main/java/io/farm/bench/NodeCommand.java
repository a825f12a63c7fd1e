package io.farm.bench;

import io.farm.core.Farm;
import io.farm.core.cluster.JvmProcess;
import io.farm.core.cluster.Node;
import io.farm.core.config.ClusterConfig;
import io.farm.hashtable.HashTables;
import io.farm.hashtable.ycsb.FieldMerge;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.concurrent.Callable;

/** {@code farm node}: one node process of a static cluster. */
@Command(name = "node", mixinStandardHelpOptions = true,
    description = {"Start one node process of a static cluster and serve until SIGTERM/Ctrl-C.",
        "The configuration file is what 'farm cluster' writes (cluster.properties in its data directory)."})
public final class NodeCommand implements Callable<Integer> {
    @Mixin
    NodeProcessOptions options;

    @Option(names = "--peer-timeout", defaultValue = "60", description = "seconds to wait for every member (default ${DEFAULT-VALUE})")
    int peerTimeout;

    @Option(names = "--exit-on-stdin-end", description = "also stop when standard input ends (used by 'farm cluster')")
    boolean exitOnStdinEnd;

    @Override
    public Integer call() {
        ClusterConfig cluster = options.cluster();
        int id = options.id();
        Node node = options.start(cluster);
        try {
            // The services and hashtables, attached before the peers are awaited: a member that
            // answers serves transactions, allocations and tables (e.g. 'farm ycsb --config'),
            // and YCSB's updates of the shards it holds.
            FieldMerge.register(HashTables.attach(Farm.attach(node)));
            node.announce();
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
