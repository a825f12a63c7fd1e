package io.farm.bench;

import io.farm.core.cluster.JvmProcess;
import io.farm.core.config.ClusterConfig;
import io.farm.core.region.RegionStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** {@code farm cluster}: N node processes on this host, stopped cleanly together. */
@Command(name = "cluster", mixinStandardHelpOptions = true,
    description = {"Start N node processes on this host (fabric shm), wait until every node reached every other,",
        "then serve until Ctrl-C or --seconds; stop them all and remove their files."})
public final class ClusterCommand implements Callable<Integer> {
    @Option(names = "--nodes", defaultValue = "3", description = "number of node processes (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--fabric", defaultValue = "shm", description = "shm (one process per node; default ${DEFAULT-VALUE})")
    String fabric;

    @Option(names = "--threads", defaultValue = "1", description = "workers per node (default ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--region-size", defaultValue = "2147483648", description = "region size in bytes, a power of two (default 2 GiB)")
    long regionSize;

    @Option(names = "--name", description = "cluster name (default: cluster-<pid>)")
    String name;

    @Option(names = "--data-dir", description = "parent of the cluster's data directory (default under /dev/shm)")
    Path dataDir;

    @Option(names = "--seconds", description = "stop after this many seconds (default: run until Ctrl-C)")
    Double seconds;

    @Override
    public Integer call() throws Exception {
        if (!fabric.equals("shm")) {
            throw new IllegalArgumentException("--fabric " + fabric + " is not accepted here: 'farm cluster' starts one process"
                + " per node, which needs shm (the local fabric runs all nodes in one JVM: 'farm demo')");
        }
        String clusterName = name != null ? name : "cluster-" + ProcessHandle.current().pid();
        ClusterConfig.Builder builder = ClusterConfig.builder().name(clusterName).memberCount(nodes).fabric(fabric)
            .threads(threads).regionSize(regionSize);
        if (dataDir != null) {
            builder.dataDir(dataDir.resolve(clusterName));
        }
        ClusterConfig config = builder.build();
        Path configFile = config.dataDir().resolve("cluster.properties");
        List<JvmProcess> processes = new ArrayList<>();
        CountDownLatch stop = new CountDownLatch(1);
        Thread hook = new Thread(() -> stopAll(processes, config, stop), "farm-cluster-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            config.store(configFile);
            for (int id = 0; id < nodes; id++) {
                processes.add(JvmProcess.start("node " + id, config.dataDir().resolve("node-" + id + ".log"),
                    List.of("-Xmx256m"), "io.farm.bench.FarmMain", List.of("node", "--config", configFile.toString(),
                        "--id", Integer.toString(id), "--exit-on-stdin-end")));
            }
            for (JvmProcess process : processes) {
                process.awaitReady(Duration.ofSeconds(90));
            }
            System.err.printf("farm: cluster %s: %d node processes up (fabric %s, %d workers each), data in %s%n",
                clusterName, nodes, fabric, threads, config.dataDir());
            for (JvmProcess process : processes) {
                System.err.printf("  %-8s pid %d%n", process.name(), process.pid());
            }
            System.err.println(seconds == null ? "Ctrl-C stops the cluster." : "stopping after " + seconds + " s.");
            if (seconds != null) {
                stop.await((long) (seconds * 1000), TimeUnit.MILLISECONDS);
            } else {
                stop.await();
            }
        } finally {
            stopAll(processes, config, stop);
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running already.
            }
        }
        return 0;
    }

    private static synchronized void stopAll(List<JvmProcess> processes, ClusterConfig config, CountDownLatch stop) {
        stop.countDown();
        for (JvmProcess process : processes) {
            process.close();
        }
        RegionStore.deleteTree(config.dataDir());
        if (!processes.isEmpty()) {
            System.err.println("farm: cluster " + config.name() + " stopped; " + processes.size()
                + " node processes ended and " + config.dataDir() + " removed");
            processes.clear();
        }
    }
}
