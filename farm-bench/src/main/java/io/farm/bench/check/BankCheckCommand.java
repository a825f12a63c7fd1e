package io.farm.bench.check;

import io.farm.bench.report.BenchOptions;
import io.farm.core.Farm;
import io.farm.core.cluster.EmbeddedCluster;
import io.farm.core.cluster.JvmProcess;
import io.farm.core.config.ClusterConfig;
import io.farm.core.node.Blocking;
import io.farm.core.region.RegionStore;
import io.farm.core.tx.history.History;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * {@code farm check bank}: the bank invariant under concurrent transactions, and strict
 * serializability of everything committed. A accounts of {@value BankWorkload#INITIAL_BALANCE}
 * are spread over the N nodes (each opens its share, so it is their primary); every worker of
 * every node runs transfers and audits for S seconds ({@link BankWorkload}); then one node
 * audits once more, and the histories every node recorded are merged and checked
 * ({@link BankVerdict}). Exit status 0 if everything held, 1 if not.
 *
 * <p>On {@code local} every node runs in this JVM. On {@code shm} this process is a coordinator,
 * not a node: it starts N node processes ({@link BankNodeCommand}), which run the check in step
 * through files in the cluster's data directory and hand their histories back in files
 * ({@link HistoryFile}); it waits for them, stops them, removes the directory and judges.
 */
@Command(name = "bank", mixinStandardHelpOptions = true,
    description = {"Transfers and audits from every worker of N nodes for S seconds.",
        "Every audit must see the bank's total, and the merged history of every",
        "node must be strictly serializable. Exit status 0 if both held, 1 if not.",
        "On shm each node is a process of this host."})
public final class BankCheckCommand implements Callable<Integer> {
    /** Workers per node. */
    static final int WORKERS = 2;
    /** Region size of the check's clusters: the accounts are few and small. */
    static final long REGION_SIZE = 64L << 20;
    static final int MAX_NODES = 16;
    static final int MAX_ACCOUNTS = 4096;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    /** What a node process's ready line starts with ({@link JvmProcess#announceReady}). */
    private static final String READY = "READY ";
    private static final long POLL_MILLIS = 20;

    @Option(names = "--nodes", defaultValue = "3", description = "nodes, 1.." + MAX_NODES + " (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--fabric", defaultValue = "local",
        description = "local (every node in this JVM) or shm (a process per node) (default ${DEFAULT-VALUE})")
    String fabric;

    @Option(names = "--seconds", defaultValue = "10", description = "seconds of workload (default ${DEFAULT-VALUE})")
    double seconds;

    @Option(names = "--accounts", defaultValue = "64",
        description = "accounts, at least 2 and one per node, at most " + MAX_ACCOUNTS + " (default ${DEFAULT-VALUE})")
    int accounts;

    @Mixin
    BenchOptions options;

    @Override
    public Integer call() throws Exception {
        if (!fabric.equals("local") && !fabric.equals("shm")) {
            throw new IllegalArgumentException("--fabric " + fabric + " is not accepted: local or shm");
        }
        if (nodes < 1 || nodes > MAX_NODES) {
            throw new IllegalArgumentException("--nodes " + nodes + " is not accepted: 1.." + MAX_NODES);
        }
        BenchOptions.checkSeconds(seconds);
        int minAccounts = Math.max(2, nodes);
        if (accounts < minAccounts || accounts > MAX_ACCOUNTS) {
            throw new IllegalArgumentException("--accounts " + accounts + " is not accepted with --nodes " + nodes + ": "
                + minAccounts + ".." + MAX_ACCOUNTS + " (a transfer needs two accounts, and every node holds one at least)");
        }
        String name = "check-bank-" + ProcessHandle.current().pid();
        ClusterConfig config = ClusterConfig.builder().name(name).memberCount(nodes).fabric(fabric).threads(WORKERS)
            .regionSize(REGION_SIZE).dataDir(options.dataDir(name)).build();
        System.err.printf(Locale.ROOT, "check bank: %d nodes (%s, %d workers each, %d backups), %d accounts of %d, %s s%n",
            nodes, fabric, WORKERS, config.backups(), accounts, BankWorkload.INITIAL_BALANCE, seconds);
        Collected run = fabric.equals("local") ? runLocal(config) : runShm(config);
        System.err.println("check bank: workload done; checking " + run.histories().stream()
            .mapToInt(h -> h.transactions().size()).sum() + " transactions");
        BankVerdict verdict = BankVerdict.judge(new BankVerdict.Run(fabric, nodes, WORKERS, seconds), run.accounts(),
            run.outcomes(), run.histories());
        verdict.print(System.err);
        options.print(verdict.json());
        return verdict.passed() ? 0 : 1;
    }

    /** The exchange directory of a check's cluster. */
    static Path exchangeDir(ClusterConfig config) {
        return config.dataDir().resolve("bank");
    }

    /** How long a node's workload of {@code seconds} may take before it is taken for a hang. */
    static Duration workloadTimeout(double seconds) {
        return Duration.ofMillis((long) (seconds * 1000) + 60_000);
    }

    private Collected runLocal(ClusterConfig config) {
        try (EmbeddedCluster cluster = EmbeddedCluster.start(config)) {
            List<BankWorkload> workloads = Farm.attachAll(cluster.nodes()).stream().map(BankWorkload::new).toList();
            List<Accounts> parts = new ArrayList<>();
            for (int node = 0; node < nodes; node++) {
                parts.add(workloads.get(node).open(BankWorkload.share(node, nodes, accounts)));
            }
            Accounts bank = Accounts.concat(parts);
            workloads.forEach(workload -> workload.startRecording(seconds));
            long deadline = System.nanoTime() + (long) (seconds * 1e9);
            List<CompletableFuture<WorkloadTally>> running = workloads.stream()
                .map(workload -> workload.run(bank.addresses(), deadline)).toList();
            List<WorkloadTally> tallies = new ArrayList<>();
            for (int node = 0; node < nodes; node++) {
                try {
                    tallies.add(Blocking.await(running.get(node), workloadTimeout(seconds)));
                } catch (TimeoutException e) {
                    throw new IllegalStateException("the workload of node " + node + " did not end within "
                        + workloadTimeout(seconds) + " of its start: an operation hangs");
                }
            }
            BankWorkload.Audit finalAudit = workloads.getFirst().finalAudit(bank.addresses());
            List<History> histories = new ArrayList<>();
            List<NodeOutcome> outcomes = new ArrayList<>();
            for (int node = 0; node < nodes; node++) {
                histories.add(workloads.get(node).stopRecording());
                outcomes.add(workloads.get(node).outcome(tallies.get(node), node == 0 ? finalAudit : null));
            }
            return new Collected(bank, outcomes, histories);
        }
    }

    private Collected runShm(ClusterConfig config) {
        Path configFile = config.dataDir().resolve("cluster.properties");
        ExchangeDirectory exchange = new ExchangeDirectory(exchangeDir(config));
        List<JvmProcess> processes = new ArrayList<>();
        Thread hook = new Thread(() -> stopAll(processes, config), "farm-check-bank-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            Files.createDirectories(exchange.dir());
            config.store(configFile);
            for (int id = 0; id < nodes; id++) {
                processes.add(JvmProcess.start("bank node " + id, config.dataDir().resolve("node-" + id + ".log"),
                    List.of("-Xmx2g"), "io.farm.bench.FarmMain", List.of("check", "bank-node", "--config",
                        configFile.toString(), "--id", Integer.toString(id), "--accounts", Integer.toString(accounts),
                        "--seconds", Double.toString(seconds))));
            }
            awaitEvery(processes, READY, START_TIMEOUT);
            System.err.println("check bank: " + nodes + " node processes up: " + processes);
            awaitEvery(processes, BankNodeCommand.DONE, START_TIMEOUT.plus(workloadTimeout(seconds)));
            List<Accounts> parts = new ArrayList<>();
            List<NodeOutcome> outcomes = new ArrayList<>();
            List<History> histories = new ArrayList<>();
            for (int id = 0; id < nodes; id++) {
                parts.add(Accounts.load(exchange.accounts(id)));
                outcomes.add(NodeOutcome.load(exchange.outcome(id)));
                histories.add(HistoryFile.read(exchange.history(id)));
            }
            return new Collected(Accounts.concat(parts), outcomes, histories);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + exchange.dir(), e);
        } finally {
            stopAll(processes, config);
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running already.
            }
        }
    }

    /**
     * Waits until every process printed a line starting with {@code prefix}; fails as soon as
     * one of them exits without printing it (the others would only wait for it at a barrier),
     * with that process's log tail.
     */
    private static void awaitEvery(List<JvmProcess> processes, String prefix, Duration timeout) {
        List<JvmProcess> waiting = new ArrayList<>(processes);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!waiting.isEmpty()) {
            for (Iterator<JvmProcess> i = waiting.iterator(); i.hasNext(); ) {
                JvmProcess process = i.next();
                boolean alive = process.isAlive();
                try {
                    process.awaitLine(prefix, Duration.ZERO);
                    i.remove();
                } catch (IllegalStateException notYet) {
                    if (!alive || System.nanoTime() - deadline > 0) {
                        throw notYet;
                    }
                }
            }
            if (!waiting.isEmpty()) {
                try {
                    Thread.sleep(POLL_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for the node processes", e);
                }
            }
        }
    }

    private static synchronized void stopAll(List<JvmProcess> processes, ClusterConfig config) {
        for (JvmProcess process : processes) {
            process.close();
        }
        processes.clear();
        RegionStore.deleteTree(config.dataDir());
    }

    /** What a run left to judge. */
    private record Collected(Accounts accounts, List<NodeOutcome> outcomes, List<History> histories) {
    }
}
