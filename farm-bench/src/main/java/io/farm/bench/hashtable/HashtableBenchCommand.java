package io.farm.bench.hashtable;

import io.farm.bench.report.BenchOptions;
import io.farm.bench.report.JsonObject;
import io.farm.core.cluster.Node;
import io.farm.core.config.ClusterConfig;
import io.farm.core.fabric.FabricStats;
import io.farm.core.region.RegionStore;
import io.farm.hashtable.HashTable;
import io.farm.hashtable.HashTableConfig;
import io.farm.hashtable.HashTableLayout;
import io.farm.hashtable.TableCensus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * {@code farm bench hashtable}: the analog of FaRM's hashtable figures (NSDI'14 §3.6 and §6), on
 * tables filled to 90 % of their bucket slots by puts from every worker of node 0:
 * <ul>
 *   <li>a table of H = 8 with 8-byte keys and values inline: fabric reads per lock-free lookup,
 *       lookups per second lock-free ({@link HashTable#get}) and as messages to the shard's
 *       primary ({@link HashTable#getByMessage}), every worker of node 0 keeping a window of
 *       lookups in flight, against gets of Chronicle Map holding the same pairs in this process
 *       on as many threads; for uniform and Zipf 0.99 key choice;</li>
 *   <li>local lookups: uniform among the keys whose shard's primary is node 0, read with local
 *       memory accesses, against Chronicle Map gets of the same keys (FaRM's single-machine
 *       comparison);</li>
 *   <li>a table of H = 6 with 16-byte keys and 32-byte values inline: its space utilization
 *       (bytes of keys and values over the bytes the table occupies, {@link TableCensus}).</li>
 * </ul>
 */
@Command(name = "hashtable", mixinStandardHelpOptions = true,
    description = {"Hashtable lookups at 90 %% occupancy: lock-free vs. message lookups vs. Chronicle Map gets,",
        "local lookups vs. Chronicle Map, reads per lookup, space utilization. On shm the other nodes are child processes."})
public final class HashtableBenchCommand implements Callable<Integer> {
    /** Occupancy the tables are filled to: keys = floor(OCCUPANCY x bucket slots). */
    static final double OCCUPANCY = 0.9;
    private static final long REGION_SIZE = 256L << 20;
    private static final long LOAD_TIMEOUT_SECONDS = 600;
    /** The report's section of local lookups. */
    private static final String LOCAL = "local";

    @Option(names = "--fabric", defaultValue = "local", description = "local or shm (default ${DEFAULT-VALUE})")
    String fabric;

    @Option(names = "--seconds", defaultValue = "3", description = "seconds per measured phase; 8 phases (default ${DEFAULT-VALUE})")
    double seconds;

    @Option(names = "--nodes", defaultValue = "3", description = "nodes, 2..8 (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--threads", defaultValue = "2", description = "workers per node and Chronicle Map threads, 1..16 (default ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--window", defaultValue = "16", description = "operations in flight per worker, 1..256 (default ${DEFAULT-VALUE})")
    int window;

    @Option(names = "--shards", defaultValue = "16", description = "shards per table, 1..1024 (default ${DEFAULT-VALUE})")
    int shards;

    @Option(names = "--buckets-per-shard", defaultValue = "2048",
        description = "home buckets per shard, 1 .. what fits a 1 MiB shard (default ${DEFAULT-VALUE})")
    int bucketsPerShard;

    @Option(names = "--idle", defaultValue = "backoff", description = {"workers' idle strategy: backoff, spin, yield or sleep",
        "(default ${DEFAULT-VALUE}, the nodes' default)"})
    String idle;

    @Mixin
    BenchOptions options;

    @Override
    public Integer call() throws Exception {
        BenchOptions.checkSeconds(seconds);
        if (!fabric.equals("local") && !fabric.equals("shm")) {
            throw new IllegalArgumentException("--fabric " + fabric + " is not accepted: local or shm");
        }
        BenchOptions.checkRange("--nodes", nodes, 2, 8);
        BenchOptions.checkRange("--threads", threads, 1, 16);
        BenchOptions.checkRange("--window", window, 1, 256);
        BenchOptions.checkRange("--shards", shards, 1, 1024);
        BenchOptions.checkRange("--buckets-per-shard", bucketsPerShard, 1, Integer.MAX_VALUE - 1);
        checkShard(HashTableConfig.of(8, 8, 8, 8, shards, bucketsPerShard));
        checkShard(HashTableConfig.of(6, 16, 32, 32, shards, bucketsPerShard));
        // Shards take every bucket their allocation (a size class) holds, as a well-sized table does.
        HashTableConfig lookupShape = HashTableLayout.fillShards(HashTableConfig.of(8, 8, 8, 8, shards, bucketsPerShard));
        HashTableConfig spaceShape = HashTableLayout.fillShards(HashTableConfig.of(6, 16, 32, 32, shards, bucketsPerShard));

        String name = "bench-hashtable-" + ProcessHandle.current().pid();
        Path dataDir = options.dataDir(name);
        ClusterConfig config = HashtableCluster.config(name, fabric, nodes, threads, idle, REGION_SIZE, dataDir);
        long phaseNanos = (long) (seconds * 1e9);
        long warmupNanos = Math.min(phaseNanos, 1_000_000_000L);

        BenchKeys lookupKeys = new BenchKeys(keysFor(lookupShape), 8, 8);
        int[][][] draws = new int[KeyChoice.values().length][threads][];
        for (KeyChoice choice : KeyChoice.values()) {
            ZipfSampler sampler = choice.sampler(lookupKeys.count());
            for (int t = 0; t < threads; t++) {
                draws[choice.ordinal()][t] = choice.draws(lookupKeys.count(), sampler, 1000L * choice.ordinal() + t);
            }
        }
        // A SIGTERM or Ctrl-C skips the finally below: the hook still removes the cluster's files.
        Thread removeFiles = new Thread(() -> RegionStore.deleteTree(dataDir), "bench-hashtable-cleanup");
        Runtime.getRuntime().addShutdownHook(removeFiles);
        try (HashtableCluster cluster = HashtableCluster.start(config)) {
            Node node = cluster.measuring();
            progress("hashtable: %s fabric, %d nodes x %d workers, window %d, %d shards x %d buckets (filling the"
                + " shards' allocations), %s s per phase%n", fabric, nodes, threads, window, shards,
                lookupShape.bucketsPerShard(), seconds);
            HashTable table = cluster.tables().createBlocking("lookups", lookupShape);
            Throughput load = TableLoader.load(node, table, lookupKeys, window, LOAD_TIMEOUT_SECONDS);
            TableCensus lookupCensus = census(node, table, lookupKeys.count());
            progress("loaded %,d keys (H = 8, 8-byte keys and values) at %,.0f puts/s; occupancy %.3f%n",
                lookupKeys.count(), load.perSecond(), lookupCensus.occupancy());

            JsonObject result = new JsonObject()
                .put("benchmark", "hashtable")
                .put("fabric", fabric)
                .put("nodes", nodes)
                .put("threads", threads)
                .put("window", window)
                .put("seconds_per_phase", seconds)
                .put("shards", shards)
                .put("buckets_per_shard", lookupShape.bucketsPerShard())
                .put("keys", lookupKeys.count())
                .put("occupancy", lookupCensus.occupancy())
                .put("pairs_in_overflow", lookupCensus.pairs() - lookupCensus.pairsInBuckets())
                .put("overflow_blocks", lookupCensus.overflowBlocks())
                .put("load_puts_per_s", load.perSecond())
                .put("load_retries", load.retries());

            ChronicleBaseline chronicle = startChronicle(lookupKeys, result);
            try {
                // Warm-up, not reported: the JIT compiles each path before it is measured.
                int[][] warmupDraws = draws[KeyChoice.UNIFORM.ordinal()];
                for (LookupPath path : LookupPath.values()) {
                    LookupPhase.run(node, table, path, lookupKeys, warmupDraws, window, warmupNanos);
                }
                if (chronicle != null) {
                    chronicle.run(warmupDraws, warmupNanos);
                }
                for (KeyChoice choice : KeyChoice.values()) {
                    result.put(choice.label(), measure(node, table, lookupKeys, draws[choice.ordinal()], phaseNanos,
                        chronicle, choice));
                }
                result.put(LOCAL, measureLocal(node, table, lookupKeys, phaseNanos, chronicle));
            } finally {
                if (chronicle != null) {
                    chronicle.close();
                }
            }

            BenchKeys spaceKeys = new BenchKeys(keysFor(spaceShape), 16, 32);
            HashTable spaceTable = cluster.tables().createBlocking("space", spaceShape);
            Throughput spaceLoad = TableLoader.load(node, spaceTable, spaceKeys, window, LOAD_TIMEOUT_SECONDS);
            TableCensus space = census(node, spaceTable, spaceKeys.count());
            progress("loaded %,d keys (H = 6, 16-byte keys, 32-byte values) at %,.0f puts/s; space utilization %.3f%n",
                spaceKeys.count(), spaceLoad.perSecond(), space.spaceUtilization());
            result.put("space", new JsonObject()
                .put("neighbourhood", spaceShape.neighbourhood())
                .put("key_bytes", 16)
                .put("value_bytes", 32)
                .put("keys", spaceKeys.count())
                .put("occupancy", space.occupancy())
                .put("space_utilization", space.spaceUtilization())
                .put("pair_bytes", space.pairBytes())
                .put("occupied_bytes", space.occupiedBytes())
                .put("pairs_in_overflow", space.pairs() - space.pairsInBuckets())
                .put("overflow_blocks", space.overflowBlocks())
                .put("load_retries", spaceLoad.retries()));
            report(result);
            return 0;
        } finally {
            Runtime.getRuntime().removeShutdownHook(removeFiles);
            RegionStore.deleteTree(dataDir);
        }
    }

    /** The three phases of one key choice: lock-free lookups, message lookups, Chronicle Map gets. */
    private JsonObject measure(Node node, HashTable table, BenchKeys keys, int[][] draws, long phaseNanos,
                               ChronicleBaseline chronicle, KeyChoice choice) throws Exception {
        Snapshot before = Snapshot.of(node, table);
        Throughput lockFree = LookupPhase.run(node, table, LookupPath.LOCK_FREE, keys, draws, window, phaseNanos);
        Snapshot afterLockFree = Snapshot.of(node, table);
        Throughput rpc = LookupPhase.run(node, table, LookupPath.MESSAGE, keys, draws, window, phaseNanos);
        Snapshot afterRpc = Snapshot.of(node, table);
        Snapshot lockFreeCounts = afterLockFree.minus(before);
        Snapshot rpcCounts = afterRpc.minus(afterLockFree);
        JsonObject figures = new JsonObject()
            .put("lookups_per_s", lockFree.perSecond())
            .put("rpc_lookups_per_s", rpc.perSecond())
            .put("lockfree_over_rpc", lockFree.perSecond() / rpc.perSecond())
            .put("reads_per_lookup", lockFreeCounts.hashtableReadsPerLookup())
            .put("fabric_reads_per_lookup", (double) lockFreeCounts.fabric().readOps() / lockFree.operations())
            .put("local_reads_per_lookup", lockFreeCounts.localReadsPerLookup())
            .put("restarts", lockFreeCounts.restarts())
            .put("lookups", lockFree.operations())
            .put("rpc_lookups", rpc.operations())
            .put("lockfree_retries", lockFree.retries())
            .put("rpc_retries", rpc.retries())
            .put("lockfree_accounting", accounting(lockFreeCounts, lockFree.operations()))
            .put("rpc_accounting", accounting(rpcCounts, rpc.operations()));
        progress("%-8s lock-free %,12.0f lookups/s, %.4f reads/lookup (fabric: %.4f, local: %.4f), %d restarts%n",
            choice.label(), lockFree.perSecond(), lockFreeCounts.hashtableReadsPerLookup(),
            (double) lockFreeCounts.fabric().readOps() / lockFree.operations(), lockFreeCounts.localReadsPerLookup(),
            lockFreeCounts.restarts());
        progress("%-8s rpc       %,12.0f lookups/s, %.3f messages/lookup%n", choice.label(), rpc.perSecond(),
            (double) rpcCounts.fabric().messageOps() / rpc.operations());
        if (chronicle != null) {
            Throughput gets = chronicle.run(draws, phaseNanos);
            figures.put("chronicle_gets_per_s", gets.perSecond())
                .put("lockfree_over_chronicle", lockFree.perSecond() / gets.perSecond())
                .put("chronicle_gets", gets.operations());
            progress("%-8s chronicle %,12.0f gets/s on %d threads%n", choice.label(), gets.perSecond(), threads);
        }
        return figures;
    }

    /**
     * Local lookups (FaRM NSDI'14 §6.2, single machine): uniform keys among those whose shard's
     * primary is the measuring node, read with local memory accesses; against Chronicle Map gets
     * of the same key sequences (a single-machine store, like FaRM's baseline there).
     */
    private JsonObject measureLocal(Node node, HashTable table, BenchKeys keys, long phaseNanos, ChronicleBaseline chronicle)
        throws Exception {
        int[] local = IntStream.range(0, keys.count())
            .filter(i -> table.shardPrimary(table.shardOfKey(keys.key(i))) == node.id()).toArray();
        JsonObject figures = new JsonObject().put("keys", local.length);
        if (local.length == 0) {
            progress("%-8s no key's shard is on node %d: no local lookups%n", LOCAL, node.id());
            return figures;
        }
        int[][] draws = new int[threads][KeyChoice.DRAWS];
        for (int t = 0; t < threads; t++) {
            SplittableRandom random = new SplittableRandom(7000L + t);
            for (int i = 0; i < KeyChoice.DRAWS; i++) {
                draws[t][i] = local[random.nextInt(local.length)];
            }
        }
        Snapshot before = Snapshot.of(node, table);
        Throughput lockFree = LookupPhase.run(node, table, LookupPath.LOCK_FREE, keys, draws, window, phaseNanos);
        Snapshot counts = Snapshot.of(node, table).minus(before);
        figures.put("lookups_per_s", lockFree.perSecond())
            .put("reads_per_lookup", counts.hashtableReadsPerLookup())
            .put("fabric_reads_per_lookup", (double) counts.fabric().readOps() / lockFree.operations())
            .put("local_reads_per_lookup", counts.localReadsPerLookup())
            .put("lookups", lockFree.operations())
            .put("lockfree_retries", lockFree.retries());
        progress("%-8s lock-free %,12.0f lookups/s of the %,d keys on node %d, %.4f reads/lookup (local: %.4f)%n", LOCAL,
            lockFree.perSecond(), local.length, node.id(), counts.hashtableReadsPerLookup(), counts.localReadsPerLookup());
        if (chronicle != null) {
            Throughput gets = chronicle.run(draws, phaseNanos);
            figures.put("chronicle_gets_per_s", gets.perSecond())
                .put("lockfree_over_chronicle", lockFree.perSecond() / gets.perSecond())
                .put("chronicle_gets", gets.operations());
            progress("%-8s chronicle %,12.0f gets/s on %d threads%n", LOCAL, gets.perSecond(), threads);
        }
        return figures;
    }

    /**
     * Chronicle Map loaded with the lookup table's pairs, or null if it cannot run in this JVM
     * (typically a JVM started without the opens and exports it needs): then the report says why
     * in {@code chronicle_error} and has no Chronicle figures.
     */
    private static ChronicleBaseline startChronicle(BenchKeys keys, JsonObject result) {
        try {
            long start = System.nanoTime();
            ChronicleBaseline chronicle = ChronicleBaseline.load(keys);
            progress("Chronicle Map created and loaded with the same %,d pairs in %.1f s%n", keys.count(),
                (System.nanoTime() - start) / 1e9);
            return chronicle;
        } catch (RuntimeException | LinkageError | AssertionError e) {
            // Without its opens Chronicle fails in its static initializers: an AssertionError
            // wrapping an IllegalAccessException, or an ExceptionInInitializerError.
            result.put("chronicle_error", e.toString());
            progress("Chronicle Map cannot run here, its figures are left out: %s%n", e);
            return null;
        }
    }

    private static JsonObject accounting(Snapshot counts, long lookups) {
        FabricStats fabric = counts.fabric();
        return new JsonObject()
            .put("read_ops", fabric.readOps())
            .put("read_bytes", fabric.readBytes())
            .put("write_ops", fabric.writeOps())
            .put("message_ops", fabric.messageOps())
            .put("reads_per_lookup", (double) fabric.readOps() / lookups)
            .put("writes_per_lookup", (double) fabric.writeOps() / lookups)
            .put("messages_per_lookup", (double) fabric.messageOps() / lookups)
            .put("local_lookups", counts.lookups())
            .put("local_lookup_reads", counts.reads())
            .put("local_lookup_local_reads", counts.localReads())
            .put("restarts", counts.restarts());
    }

    /** Walks the table and checks that it holds exactly the keys loaded. */
    private static TableCensus census(Node node, HashTable table, int keys) throws Exception {
        TableCensus census = node.submit(0, table::census).get(LOAD_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (census.pairs() != keys) {
            throw new IllegalStateException("table " + table.name() + " holds " + census.pairs() + " pairs after " + keys
                + " distinct keys were put");
        }
        return census;
    }

    private static int keysFor(HashTableConfig shape) {
        long keys = (long) Math.floor(OCCUPANCY * shape.bucketSlots());
        if (keys < 1 || keys > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("--shards " + shape.shards() + " x --buckets-per-shard " + shape.bucketsPerShard()
                + " gives " + keys + " keys at 90 % occupancy: accepted 1.." + (Integer.MAX_VALUE - 8));
        }
        return (int) keys;
    }

    private static void checkShard(HashTableConfig shape) {
        try {
            new HashTableLayout(shape);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--buckets-per-shard " + shape.bucketsPerShard() + " is not accepted for the "
                + "table of H = " + shape.neighbourhood() + ": " + e.getMessage());
        }
    }


    private void report(JsonObject result) {
        System.err.printf(Locale.ROOT, "%n%-8s %14s %14s %10s %14s %10s %10s%n", "keys", "lock-free/s", "rpc/s",
            "lf / rpc", "chronicle/s", "lf / chr", "reads/lkp");
        for (KeyChoice choice : KeyChoice.values()) {
            JsonObject figures = (JsonObject) result.get(choice.label());
            Object chronicle = figures.get("chronicle_gets_per_s");
            System.err.printf(Locale.ROOT, "%-8s %,14.0f %,14.0f %10.2f %14s %10s %10.4f%n", choice.label(),
                (double) figures.get("lookups_per_s"), (double) figures.get("rpc_lookups_per_s"),
                (double) figures.get("lockfree_over_rpc"),
                chronicle == null ? "-" : String.format(Locale.ROOT, "%,.0f", (double) chronicle),
                chronicle == null ? "-" : String.format(Locale.ROOT, "%.2f", (double) figures.get("lockfree_over_chronicle")),
                (double) figures.get("reads_per_lookup"));
        }
        JsonObject local = (JsonObject) result.get(LOCAL);
        Object localChronicle = local.get("chronicle_gets_per_s");
        if (local.get("lookups_per_s") != null) {
            System.err.printf(Locale.ROOT, "%-8s %,14.0f %14s %10s %14s %10s %10.4f%n", LOCAL,
                (double) local.get("lookups_per_s"), "-", "-",
                localChronicle == null ? "-" : String.format(Locale.ROOT, "%,.0f", (double) localChronicle),
                localChronicle == null ? "-" : String.format(Locale.ROOT, "%.2f", (double) local.get("lockfree_over_chronicle")),
                (double) local.get("reads_per_lookup"));
        }
        JsonObject space = (JsonObject) result.get("space");
        System.err.printf(Locale.ROOT, "space utilization (H = 6, 16 B keys, 32 B values, occupancy %.3f): %.3f%n",
            (double) space.get("occupancy"), (double) space.get("space_utilization"));
        if (result.get("chronicle_error") != null) {
            System.err.println("Chronicle Map did not run: " + result.get("chronicle_error"));
        }
        options.print(result);
    }

    private static void progress(String format, Object... args) {
        System.err.printf(Locale.ROOT, format, args);
    }
}
