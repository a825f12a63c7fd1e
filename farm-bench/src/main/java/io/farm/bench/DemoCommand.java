package io.farm.bench;

import io.farm.bench.report.BenchOptions;
import io.farm.core.Farm;
import io.farm.core.cluster.EmbeddedCluster;
import io.farm.core.cluster.Node;
import io.farm.core.config.ClusterConfig;
import io.farm.core.fabric.FabricStats;
import io.farm.core.tx.AbortReason;
import io.farm.core.tx.TxStats;
import io.farm.hashtable.HashTable;
import io.farm.hashtable.HashTableConfig;
import io.farm.hashtable.HashTables;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code farm demo}: FaRM's key-value store on a 3-node cluster in this JVM (local fabric, 2
 * backups per region): loads a hashtable, runs a read-mostly mix of lock-free lookups and
 * shipped updates from every worker of every node, and prints throughput, latency percentiles,
 * reads per lookup, aborts and the fabric accounting. Ctrl-C stops it cleanly (its files are
 * removed).
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Run FaRM's hashtable on a 3-node embedded cluster (local fabric, 2 backups): load keys, "
        + "run a read-mostly mix, print throughput, latency, reads per lookup and aborts.")
public final class DemoCommand implements Callable<Integer> {
    static final int KEY_BYTES = 16;
    static final int VALUE_BYTES = 32;
    private static final int NEIGHBOURHOOD = 8;
    private static final double TARGET_OCCUPANCY = 0.75;
    private static final int MAX_BUCKETS_PER_SHARD = 2048;

    @Option(names = "--nodes", defaultValue = "3", description = "nodes, 1..16 (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--keys", defaultValue = "100000", description = "keys loaded, 1..10000000 (default ${DEFAULT-VALUE})")
    int keys;

    @Option(names = "--seconds", defaultValue = "5", description = "length of the mix, 1..600 s (default ${DEFAULT-VALUE})")
    int seconds;

    @Option(names = "--lookups", defaultValue = "95", description = "percentage of lookups in the mix, 0..100 (default ${DEFAULT-VALUE}); the rest are updates")
    int lookupPercent;

    @Option(names = "--window", defaultValue = "8", description = "operations in flight per worker, 1..256 (default ${DEFAULT-VALUE})")
    int window;

    @Override
    public Integer call() throws Exception {
        BenchOptions.checkRange("--nodes", nodes, 1, 16);
        BenchOptions.checkRange("--keys", keys, 1, 10_000_000);
        BenchOptions.checkRange("--seconds", seconds, 1, 600);
        BenchOptions.checkRange("--lookups", lookupPercent, 0, 100);
        BenchOptions.checkRange("--window", window, 1, 256);
        ClusterConfig config = ClusterConfig.builder().name("demo-" + ProcessHandle.current().pid()).memberCount(nodes)
            .fabric("local").regionSize(256L << 20).build();
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch closed = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            stop.set(true);
            try {
                closed.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "farm-demo-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try (EmbeddedCluster cluster = EmbeddedCluster.start(config)) {
            return run(cluster, config, stop);
        } finally {
            closed.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // Ctrl-C: the hook is running and waits for the close above.
            }
        }
    }

    private int run(EmbeddedCluster cluster, ClusterConfig config, AtomicBoolean stop) throws Exception {
        List<Farm> farms = Farm.attachAll(cluster.nodes());
        List<HashTables> tables = HashTables.attachAll(farms);
        int slots = NEIGHBOURHOOD / 2;
        long bucketsNeeded = (long) Math.ceil(keys / (TARGET_OCCUPANCY * slots));
        int shards = (int) Math.max(nodes, (bucketsNeeded + MAX_BUCKETS_PER_SHARD - 1) / MAX_BUCKETS_PER_SHARD);
        int bucketsPerShard = (int) Math.max(1, (bucketsNeeded + shards - 1) / shards);
        HashTableConfig shape = HashTableConfig.of(NEIGHBOURHOOD, KEY_BYTES, VALUE_BYTES, VALUE_BYTES, shards, bucketsPerShard);
        say("farm demo: %d nodes in this JVM (local fabric), %d workers each, %d backups per region%n", config.size(),
            config.threads(), config.backups());
        HashTable table = tables.getFirst().createBlocking("demo", shape);
        say("table \"demo\": %,d keys of %d B, values of %d B inline, H = %d, %d shards of %,d buckets (occupancy %.0f %%)%n",
            keys, KEY_BYTES, VALUE_BYTES, NEIGHBOURHOOD, shards, bucketsPerShard,
            100.0 * keys / shape.bucketSlots());

        List<HashTable> views = tables.stream().map(t -> t.open("demo")).toList();
        DemoWorkload workload = new DemoWorkload(cluster, views, keys, window, stop);
        long loadStart = System.nanoTime();
        DemoWorkload.Result load = workload.load(this::progress);
        double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
        System.err.println();
        if (stop.get()) {
            say("stopped while loading (%,d keys loaded)%n", load.updates());
            return 130;
        }
        say("load: %,d puts in %.1f s (%,.0f puts/s)%n", load.updates(), loadSeconds, load.updates() / loadSeconds);

        FabricStats[] before = stats(cluster);
        long[] committedBefore = farms.stream().mapToLong(f -> f.transactions().stats().committed()).toArray();
        Map<AbortReason, Long> abortsBefore = aborts(farms);
        long lookupReads = views.stream().mapToLong(t -> t.stats().lookupReads()).sum();
        long lookupLocalReads = views.stream().mapToLong(t -> t.stats().lookupLocalReads()).sum();
        long lookups = views.stream().mapToLong(t -> t.stats().lookups()).sum();
        long restarts = views.stream().mapToLong(t -> t.stats().restarts()).sum();
        long combined = tables.stream().mapToLong(HashTables::combinedMutations).sum();
        say("mix: %d %% lookups, %d %% updates, uniform keys, %d in flight per worker, %d s ...%n", lookupPercent,
            100 - lookupPercent, window, seconds);
        DemoWorkload.Result mix = workload.mix(lookupPercent, TimeUnit.SECONDS.toNanos(seconds));
        FabricStats[] after = stats(cluster);
        if (stop.get()) {
            say("stopped%n");
        }
        double mixSeconds = mix.nanos() / 1e9;
        say("%n%-10s %12s %12s %9s %9s %9s%n", "operation", "count", "per second", "p50 µs", "p99 µs", "p99.9 µs");
        row("lookup", mix.lookupLatency(), mixSeconds);
        row("update", mix.updateLatency(), mixSeconds);
        long mixLookups = views.stream().mapToLong(t -> t.stats().lookups()).sum() - lookups;
        long mixReads = views.stream().mapToLong(t -> t.stats().lookupReads()).sum() - lookupReads;
        long mixLocalReads = views.stream().mapToLong(t -> t.stats().lookupLocalReads()).sum() - lookupLocalReads;
        say("%nlookups verified (each value is its key's): %,d; wrong values: %,d; failed operations: %,d%s%n",
            mix.verified(), mix.wrong(), mix.failed(), mix.firstFailure() == null ? "" : " (first: " + mix.firstFailure() + ")");
        say("reads per lookup: %.3f (%,d reads for %,d lookups: %,d fabric reads, %,d local copies); lookup restarts: %,d%n",
            mixLookups == 0 ? 0.0 : (double) mixReads / mixLookups, mixReads, mixLookups, mixReads - mixLocalReads,
            mixLocalReads,
            views.stream().mapToLong(t -> t.stats().restarts()).sum() - restarts);
        long committed = 0;
        for (int n = 0; n < farms.size(); n++) {
            committed += farms.get(n).transactions().stats().committed() - committedBefore[n];
        }
        Map<AbortReason, Long> aborts = aborts(farms);
        aborts.replaceAll((reason, count) -> count - abortsBefore.get(reason));
        aborts.values().removeIf(count -> count == 0);
        say("update transactions: %,d committed, %,d aborted %s; combined updates (flat combining): %,d%n", committed,
            aborts.values().stream().mapToLong(Long::longValue).sum(), aborts.isEmpty() ? "" : aborts.toString(),
            tables.stream().mapToLong(HashTables::combinedMutations).sum() - combined);
        FabricStats total = FabricStats.ZERO;
        for (int n = 0; n < after.length; n++) {
            total = total.plus(after[n].minus(before[n]));
        }
        long operations = mix.lookupLatency().getTotalCount() + mix.updateLatency().getTotalCount();
        say("fabric per operation (all nodes): %.2f reads, %.2f writes, %.2f messages%n",
            (double) total.readOps() / Math.max(1, operations), (double) total.writeOps() / Math.max(1, operations),
            (double) total.messageOps() / Math.max(1, operations));
        return mix.wrong() == 0 && mix.failed() == 0 ? 0 : 1;
    }

    private void progress(long done) {
        int width = 40;
        int filled = (int) (width * done / keys);
        System.err.printf("\rloading [%s%s] %3d %% %,d/%,d keys", "#".repeat(filled), " ".repeat(width - filled),
            100 * done / keys, done, keys);
        System.err.flush();
    }

    private static void row(String operation, Histogram latency, double seconds) {
        long count = latency.getTotalCount();
        say("%-10s %,12d %,12.0f %9.1f %9.1f %9.1f%n", operation, count, count / seconds,
            latency.getValueAtPercentile(50) / 1000.0, latency.getValueAtPercentile(99) / 1000.0,
            latency.getValueAtPercentile(99.9) / 1000.0);
    }

    private static Map<AbortReason, Long> aborts(List<Farm> farms) {
        Map<AbortReason, Long> aborts = new EnumMap<>(AbortReason.class);
        for (Farm farm : farms) {
            TxStats stats = farm.transactions().stats();
            for (AbortReason reason : AbortReason.values()) {
                aborts.merge(reason, stats.aborted(reason), Long::sum);
            }
        }
        return aborts;
    }

    private static FabricStats[] stats(EmbeddedCluster cluster) {
        return cluster.nodes().stream().map(Node::stats).toArray(FabricStats[]::new);
    }

    private static void say(String format, Object... args) {
        System.out.printf(format, args);
        System.out.flush();
    }
}
