package io.farm.bench.txn;

import io.farm.bench.report.BenchOptions;
import io.farm.bench.report.JsonObject;
import io.farm.core.Farm;
import io.farm.core.config.ClusterConfig;
import io.farm.core.region.RegionStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code farm bench txn}: FaSST's object store workloads O(1,0), O(4,0), O(4,2) (OSDI'16 §6.1)
 * and bank transfers, committed with farm's transactions by every worker of node 0 with a window
 * of transactions in flight each; reports throughput, abort rate, latency, and the fabric and
 * commit-protocol counts per committed transaction beside SOSP'15's cost formula.
 */
@Command(name = "txn", mixinStandardHelpOptions = true,
    description = {"Transactions: FaSST's object store O(1,0), O(4,0), O(4,2) and bank transfers, coordinated by node 0.",
        "On shm every other node is a child process."})
public final class TxnBenchCommand implements Callable<Integer> {
    static final int MAX_NODES = 8;
    private static final long SETTLE_MILLIS = 20;

    @Option(names = "--fabric", defaultValue = "local", description = "local or shm (default ${DEFAULT-VALUE})")
    String fabric;

    @Option(names = "--nodes", defaultValue = "3", description = "nodes, 2.." + MAX_NODES + " (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--seconds", defaultValue = "3", description = "seconds measured per workload (default ${DEFAULT-VALUE})")
    double seconds;

    @Option(names = "--warmup", defaultValue = "2",
        description = "seconds each workload runs, unmeasured, before the first measurement, 0..600 (default ${DEFAULT-VALUE})")
    double warmup;

    @Option(names = "--window", defaultValue = "4", description = "transactions in flight per worker, 1..256 (default ${DEFAULT-VALUE})")
    int window;

    @Option(names = "--keys-per-node", defaultValue = "10000",
        description = "objects preloaded with each node as primary, 1..1000000 (default ${DEFAULT-VALUE})")
    int keysPerNode;

    @Option(names = "--threads", defaultValue = "2", description = "workers per node (default ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--region-size", defaultValue = "67108864", description = "region size, a power of two (default ${DEFAULT-VALUE})")
    long regionSize;

    @Option(names = "--idle", defaultValue = "backoff", description = "workers' idle strategy (default ${DEFAULT-VALUE})")
    String idle;

    @Option(names = "--seed", defaultValue = "1", description = "seed of the key choices (default ${DEFAULT-VALUE})")
    long seed;

    @Mixin
    BenchOptions options;

    @Override
    public Integer call() throws Exception {
        BenchOptions.checkSeconds(seconds);
        if (!(warmup >= 0 && warmup <= 600)) {
            throw new IllegalArgumentException("--warmup " + warmup + " is not accepted: 0..600");
        }
        if (!fabric.equals("local") && !fabric.equals("shm")) {
            throw new IllegalArgumentException("--fabric " + fabric + " is not accepted: local or shm");
        }
        if (nodes < 2 || nodes > MAX_NODES) {
            throw new IllegalArgumentException("--nodes " + nodes + " is not accepted: 2.." + MAX_NODES
                + " (transactions need keys on two primaries)");
        }
        BenchOptions.checkRange("--window", window, 1, 256);
        BenchOptions.checkRange("--keys-per-node", keysPerNode, 1, 1_000_000);
        if (keysPerNode < Workload.O_4_2.reads()) {
            throw new IllegalArgumentException("--keys-per-node " + keysPerNode + " is not accepted: at least "
                + Workload.O_4_2.reads() + ", so that a transaction's keys on one node can differ");
        }
        String name = "bench-txn-" + ProcessHandle.current().pid();
        int backups = Math.min(2, nodes - 1);
        ClusterConfig config = ClusterConfig.builder()
            .name(name)
            .memberCount(nodes)
            .fabric(fabric)
            .regionSize(regionSize)
            .threads(threads)
            .backups(backups)
            .idleStrategy(idle)
            .dataDir(options.dataDir(name))
            .build();
        try (TxnCluster cluster = TxnCluster.start(config)) {
            try {
                return measure(cluster, backups);
            } catch (Exception | Error e) {
                System.err.print(cluster.serverLogs());
                throw e;
            }
        } finally {
            RegionStore.deleteTree(config.dataDir());
        }
    }

    /** Preloads the store, runs every workload, checks the store and reports; returns the exit status. */
    private int measure(TxnCluster cluster, int backups) throws Exception {
        long start = System.nanoTime();
        KeySpace keys = cluster.preload(keysPerNode);
        progress("txn: %s fabric, %d nodes (f = %d backups), %d workers on node 0 with %d transactions in flight each,"
                + " %,d keys per node preloaded in %.1f s%n", fabric, nodes, backups, threads, window, keysPerNode,
            (System.nanoTime() - start) / 1e9);
        SplittableRandom seeds = new SplittableRandom(seed);
        long updates = 0;
        List<WorkloadReport> reports = new ArrayList<>();
        // Every workload warms up first: the JIT compiles the commit path while all of them run.
        if (warmup > 0) {
            for (Workload workload : Workload.ALL) {
                updates += run(cluster, keys, workload, warmup, seeds).updates();
            }
            progress("warm-up: %.1f s per workload%n", warmup);
        }
        for (Workload workload : Workload.ALL) {
            Thread.sleep(SETTLE_MILLIS);
            NodeCounts before = cluster.counts(false);
            long t0 = System.nanoTime();
            ClientResult clients = run(cluster, keys, workload, seconds, seeds);
            long nanos = System.nanoTime() - t0;
            // Truncations wait up to TxCoordinator's delay for a record to ride on: let them go.
            Thread.sleep(SETTLE_MILLIS);
            NodeCounts after = cluster.counts(true);
            updates += clients.updates();
            WorkloadReport report = new WorkloadReport(workload, clients, after.minus(before), nanos, backups);
            reports.add(report);
            progress("%s: %,.0f commits/s, abort rate %.4f%n", workload.name(), report.committedPerSecond(),
                report.abortRate());
        }
        Farm driver = cluster.driver();
        StoreCheck check = driver.node().submit(0, worker -> StoreCheck.run(driver.transactions(), worker, keys))
            .get(300, TimeUnit.SECONDS);
        boolean balanced = check.balances() == keys.keys() * KeyValueLayout.INITIAL_BALANCE;
        boolean counted = check.updates() == updates;
        JsonObject result = new JsonObject()
            .put("benchmark", "txn")
            .put("fabric", fabric)
            .put("nodes", nodes)
            .put("backups", backups)
            .put("threads", threads)
            .put("window", window)
            .put("keys_per_node", keysPerNode)
            .put("object_size", KeyValueLayout.SIZE)
            .put("seconds_per_workload", seconds)
            .put("warmup_seconds", warmup);
        JsonObject workloads = new JsonObject();
        for (WorkloadReport report : reports) {
            workloads.put(report.workload().jsonName(), report.json());
        }
        result.put("workloads", workloads)
            .put("check", new JsonObject()
                .put("objects", check.objects())
                .put("balance_sum", check.balances())
                .put("expected_balance_sum", keys.keys() * KeyValueLayout.INITIAL_BALANCE)
                .put("update_sum", check.updates())
                .put("committed_updates", updates)
                .put("holds", balanced && counted));
        System.err.printf(Locale.ROOT, "%n%s%n", WorkloadReport.header());
        for (WorkloadReport report : reports) {
            System.err.println(report.row());
        }
        System.err.printf(Locale.ROOT, "per committed transaction, summed over every node; f = %d%n", backups);
        System.err.printf(Locale.ROOT, "store check: %,d objects, balance sum %,d (expected %,d), updates %,d (committed %,d): %s%n",
            check.objects(), check.balances(), keys.keys() * KeyValueLayout.INITIAL_BALANCE, check.updates(), updates,
            balanced && counted ? "holds" : "VIOLATED");
        options.print(result);
        return balanced && counted ? 0 : 1;
    }

    /** Runs {@code workload} on every worker of node 0 for {@code duration} seconds; sums their results. */
    private ClientResult run(TxnCluster cluster, KeySpace keys, Workload workload, double duration, SplittableRandom seeds)
        throws Exception {
        Farm driver = cluster.driver();
        long deadline = System.nanoTime() + (long) (duration * 1e9);
        List<CompletableFuture<ClientResult>> clients = new ArrayList<>();
        for (int w = 0; w < threads; w++) {
            KeyChooser chooser = new KeyChooser(keys, workload, driver.node().id(), seeds.split());
            clients.add(driver.node().submit(w, worker ->
                WorkloadClient.run(driver.transactions(), worker, chooser, workload, window, deadline)));
        }
        ClientResult sum = null;
        for (CompletableFuture<ClientResult> client : clients) {
            ClientResult result = client.get((long) duration + 120, TimeUnit.SECONDS);
            sum = sum == null ? result : sum.plus(result);
        }
        return sum;
    }

    private static void progress(String format, Object... args) {
        System.err.printf(Locale.ROOT, format, args);
    }
}
