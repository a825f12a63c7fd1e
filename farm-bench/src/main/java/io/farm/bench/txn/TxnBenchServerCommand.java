package io.farm.bench.txn;

import io.farm.bench.NodeLifecycle;
import io.farm.core.Farm;
import io.farm.core.cluster.JvmProcess;
import io.farm.core.cluster.Node;
import io.farm.core.config.ClusterConfig;
import io.farm.core.fabric.shm.ShmFabric;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * A node of {@code farm bench txn} on shm other than the driver: every farm service attached and
 * {@link TxnBenchService} served, until stopped or until its parent goes away.
 */
@Command(name = "txn-server", hidden = true, mixinStandardHelpOptions = true,
    description = "A node of the transactions benchmark (started by 'bench txn --fabric shm').")
public final class TxnBenchServerCommand implements Callable<Integer> {
    @Option(names = "--config", required = true, description = "cluster configuration (.properties)")
    Path config;

    @Option(names = "--id", required = true, description = "this node's id")
    int id;

    @Override
    public Integer call() {
        ClusterConfig cluster = ClusterConfig.load(config);
        Node node = Node.start(cluster, id, ShmFabric.open(cluster.dataDir(), id));
        Farm farm = Farm.attach(node);
        TxnBenchService.install(farm, cluster.dataDir());
        JvmProcess.announceReady("txn-server node " + id);
        NodeLifecycle.serveUntilStopped(node, true);
        return 0;
    }
}
