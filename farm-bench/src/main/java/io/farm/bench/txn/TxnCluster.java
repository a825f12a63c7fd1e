package io.farm.bench.txn;

import io.farm.core.Farm;
import io.farm.core.cluster.JvmProcess;
import io.farm.core.cluster.Node;
import io.farm.core.config.ClusterConfig;
import io.farm.core.config.FabricKind;
import io.farm.core.fabric.local.LocalNetwork;
import io.farm.core.fabric.shm.ShmFabric;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The cluster {@code farm bench txn} runs on. Node 0 is the driver, in this JVM: its workers
 * coordinate every transaction. The other nodes serve {@link TxnBenchService}: in this JVM on the
 * local fabric, as child processes ({@code farm bench txn-server}) on shm, which end with their
 * parent (they watch their standard input). Every node has every farm service attached.
 */
final class TxnCluster implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final ClusterConfig config;
    private final List<AutoCloseable> resources;
    private final List<JvmProcess> servers;
    private final Farm driver;

    private TxnCluster(ClusterConfig config, List<AutoCloseable> resources, List<JvmProcess> servers, Farm driver) {
        this.config = config;
        this.resources = resources;
        this.servers = servers;
        this.driver = driver;
    }

    /** Starts every node of {@code config}; on failure stops what started. */
    static TxnCluster start(ClusterConfig config) throws Exception {
        List<AutoCloseable> resources = new ArrayList<>();
        try {
            Files.createDirectories(config.dataDir());
            Farm driver;
            List<JvmProcess> servers = new ArrayList<>();
            if (config.fabric() == FabricKind.LOCAL) {
                LocalNetwork network = new LocalNetwork();
                List<Node> nodes = new ArrayList<>();
                for (int id = 0; id < config.size(); id++) {
                    Node node = Node.start(config, id, network.attach(id));
                    resources.add(node);
                    nodes.add(node);
                }
                List<Farm> farms = Farm.attachAll(nodes);
                for (int id = 1; id < config.size(); id++) {
                    TxnBenchService.install(farms.get(id), config.dataDir());
                }
                for (Node node : nodes) {
                    node.awaitPeers(START_TIMEOUT);
                }
                driver = farms.getFirst();
            } else {
                Path configFile = config.dataDir().resolve("cluster.properties");
                config.store(configFile);
                for (int id = 1; id < config.size(); id++) {
                    JvmProcess server = JvmProcess.start("txn benchmark node " + id,
                        config.dataDir().resolve("node-" + id + ".log"), List.of("-Xmx512m"), "io.farm.bench.FarmMain",
                        List.of("bench", "txn-server", "--config", configFile.toString(), "--id", Integer.toString(id)));
                    servers.add(server);
                    resources.add(server);
                }
                Node node = Node.start(config, 0, ShmFabric.open(config.dataDir(), 0));
                // The driver's node stops first: its peers then see it leave, not die.
                resources.addFirst(node);
                driver = Farm.attach(node);
                for (JvmProcess server : servers) {
                    server.awaitReady(START_TIMEOUT);
                }
                node.awaitPeers(START_TIMEOUT);
            }
            return new TxnCluster(config, resources, servers, driver);
        } catch (Exception | Error e) {
            closeAll(resources, e);
            throw e;
        }
    }

    /** The driver's farm (node 0). */
    Farm driver() {
        return driver;
    }

    /** Preloads {@code keysPerNode} keys on every node, all at once, and returns the key space. */
    KeySpace preload(int keysPerNode) throws Exception {
        CompletableFuture<long[]> own = driver.node().submit(0, worker -> {
            List<CompletableFuture<Void>> servers = new ArrayList<>();
            for (int id = 1; id < config.size(); id++) {
                servers.add(TxnBenchService.preload(driver, worker, id, (long) id * keysPerNode, keysPerNode)
                    .toCompletableFuture());
            }
            return KeyLoader.load(driver.transactions(), worker, 0, keysPerNode)
                .thenCombine(CompletableFuture.allOf(servers.toArray(CompletableFuture[]::new)), (addresses, ignored) -> addresses);
        });
        long[][] addresses = new long[config.size()][];
        addresses[0] = own.get(TxnBenchService.PRELOAD_TIMEOUT.toSeconds() + 30, TimeUnit.SECONDS);
        for (int id = 1; id < config.size(); id++) {
            addresses[id] = KeySpace.load(KeySpace.file(config.dataDir(), id));
        }
        return new KeySpace(addresses, config.placement());
    }

    /**
     * The counts summed over every node. {@code driverFirst}: the driver's own counts are taken
     * before it asks the others (the end of an interval), else after their answers (its start),
     * so the driver's requests fall outside the interval; the others' answers to the call that
     * starts an interval fall inside it.
     */
    NodeCounts counts(boolean driverFirst) throws Exception {
        NodeCounts own = driverFirst ? NodeCounts.of(driver) : null;
        CompletableFuture<NodeCounts> others = driver.node().submit(0, worker -> {
            CompletionStage<NodeCounts> sum = CompletableFuture.completedFuture(NodeCounts.ZERO);
            for (int id = 1; id < config.size(); id++) {
                CompletionStage<NodeCounts> node = TxnBenchService.counts(driver, worker, id);
                sum = sum.thenCombine(node, NodeCounts::plus);
            }
            return sum;
        });
        NodeCounts servers = others.get(TxnBenchService.COUNTS_TIMEOUT.toSeconds() + 30, TimeUnit.SECONDS);
        return servers.plus(driverFirst ? own : NodeCounts.of(driver));
    }

    /** The last lines of every child node's log (none on the local fabric), to explain a failure. */
    String serverLogs() {
        StringBuilder logs = new StringBuilder();
        for (JvmProcess server : servers) {
            logs.append(server.logTail()).append(System.lineSeparator());
        }
        return logs.toString();
    }

    /** Stops every node, the driver's first (their files go; the caller removes the cluster's directory). */
    @Override
    public void close() throws Exception {
        closeAll(resources, null);
    }

    private static void closeAll(List<AutoCloseable> resources, Throwable pending) throws Exception {
        Exception failure = null;
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                if (pending != null) {
                    pending.addSuppressed(e);
                } else if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
