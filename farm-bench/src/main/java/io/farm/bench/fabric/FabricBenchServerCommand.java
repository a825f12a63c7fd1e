package io.farm.bench.fabric;

import io.farm.bench.NodeLifecycle;
import io.farm.core.cluster.JvmProcess;
import io.farm.core.cluster.Node;
import io.farm.core.fabric.shm.ShmFabric;
import io.farm.core.config.ClusterConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** The server node of {@code farm bench fabric} on shm: a node process that holds the region read. */
@Command(name = "fabric-server", hidden = true, mixinStandardHelpOptions = true,
    description = "The server node of the fabric benchmark (started by 'bench fabric --fabric shm').")
public final class FabricBenchServerCommand implements Callable<Integer> {
    @Option(names = "--config", required = true, description = "cluster configuration (.properties)")
    Path config;

    @Option(names = "--id", required = true, description = "this node's id")
    int id;

    @Option(names = "--region-id", required = true, description = "id of the region to serve")
    int regionId;

    @Override
    public Integer call() {
        ClusterConfig cluster = ClusterConfig.load(config);
        Node node = Node.start(cluster, id, ShmFabric.open(cluster.dataDir(), id));
        ReadServer.install(node, regionId, cluster.regionSize());
        JvmProcess.announceReady("fabric-server node " + id);
        NodeLifecycle.serveUntilStopped(node, true);
        return 0;
    }
}
