package io.farm.bench.fabric;

import io.farm.bench.NodeLifecycle;
import io.farm.core.cluster.JvmProcess;
import io.farm.core.cluster.Node;
import io.farm.core.config.ClusterConfig;
import io.farm.bench.NodeProcessOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;

/** The server node of {@code farm bench fabric} on shm: a node process that holds the region read. */
@Command(name = "fabric-server", hidden = true, mixinStandardHelpOptions = true,
    description = "The server node of the fabric benchmark (started by 'bench fabric --fabric shm').")
public final class FabricBenchServerCommand implements Callable<Integer> {
    @Mixin
    NodeProcessOptions node;

    @Option(names = "--region-id", required = true, description = "id of the region to serve")
    int regionId;

    @Override
    public Integer call() {
        ClusterConfig cluster = this.node.cluster();
        Node node = this.node.start(cluster);
        ReadServer.install(node, regionId, cluster.regionSize());
        node.announce();
        JvmProcess.announceReady("fabric-server node " + this.node.id());
        NodeLifecycle.serveUntilStopped(node, true);
        return 0;
    }
}
