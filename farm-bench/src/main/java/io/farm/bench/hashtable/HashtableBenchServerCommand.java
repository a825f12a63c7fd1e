package io.farm.bench.hashtable;

import io.farm.bench.NodeLifecycle;
import io.farm.core.Farm;
import io.farm.core.cluster.JvmProcess;
import io.farm.core.cluster.Node;
import io.farm.core.config.ClusterConfig;
import io.farm.core.region.RegionStore;
import io.farm.hashtable.HashTables;
import io.farm.bench.NodeProcessOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * A node process of {@code farm bench hashtable} on shm: farm and hashtables attached, it holds
 * shards and serves the mutations and message lookups shipped to it until stopped (SIGTERM) or
 * until its parent goes away (its standard input ends), then deleting the cluster's files.
 */
@Command(name = "hashtable-server", hidden = true, mixinStandardHelpOptions = true,
    description = "A node of the hashtable benchmark (started by 'bench hashtable --fabric shm').")
public final class HashtableBenchServerCommand implements Callable<Integer> {
    @Mixin
    NodeProcessOptions node;

    @Override
    public Integer call() {
        ClusterConfig cluster = this.node.cluster();
        Node node = this.node.start(cluster);
        HashTables.attach(Farm.attach(node));
        node.announce();
        removeClusterWhenParentDies(cluster.dataDir());
        JvmProcess.announceReady("hashtable-server node " + this.node.id());
        NodeLifecycle.serveUntilStopped(node, false);
        return 0;
    }

    /**
     * Watches standard input, the pipe from the benchmark process: it ends only when that process
     * is gone without stopping this one (killed), so nobody else will delete the cluster's files
     * (node 0's among them). Then this process deletes the whole directory, siblings racing it
     * harmlessly, and exits; its shutdown hook closes the node (its files may be gone already).
     */
    private static void removeClusterWhenParentDies(Path dataDir) {
        Thread.ofPlatform().daemon().name("hashtable-server-parent-watch").start(() -> {
            try (InputStream in = System.in) {
                while (in.read() >= 0) {
                    // Input is ignored: end of stream is the signal.
                }
            } catch (IOException e) {
                // A broken pipe means the same as end of stream.
            }
            for (int attempt = 0; attempt < 3; attempt++) {
                try {
                    RegionStore.deleteTree(dataDir);
                    break;
                } catch (UncheckedIOException siblingDeletedSomethingFirst) {
                    // Walk again: what is left is still to be deleted.
                }
            }
            System.exit(0);
        });
    }
}
