package io.farm.bench.txn;

import io.farm.bench.NodeLifecycle;
import io.farm.core.Farm;
import io.farm.core.cluster.JvmProcess;
import io.farm.core.cluster.Node;
import io.farm.core.config.ClusterConfig;
import io.farm.bench.NodeProcessOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.concurrent.Callable;

/**
 * A node of {@code farm bench txn} on shm other than the driver: every farm service attached and
 * {@link TxnBenchService} served, until stopped or until its parent goes away.
 */
@Command(name = "txn-server", hidden = true, mixinStandardHelpOptions = true,
    description = "A node of the transactions benchmark (started by 'bench txn --fabric shm').")
public final class TxnBenchServerCommand implements Callable<Integer> {
    @Mixin
    NodeProcessOptions node;

    @Override
    public Integer call() {
        ClusterConfig cluster = this.node.cluster();
        Node node = this.node.start(cluster);
        Farm farm = Farm.attach(node);
        TxnBenchService.install(farm, cluster.dataDir());
        node.announce();
        JvmProcess.announceReady("txn-server node " + this.node.id());
        NodeLifecycle.serveUntilStopped(node, true);
        return 0;
    }
}
