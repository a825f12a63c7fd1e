package io.farm.bench;

import io.farm.core.addr.GlobalAddress;
import io.farm.core.addr.RegionId;
import io.farm.core.cluster.EmbeddedCluster;
import io.farm.core.cluster.Node;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.fabric.Capability;
import io.farm.core.fabric.FabricStats;
import io.farm.core.config.ClusterConfig;
import io.farm.core.placement.PlacementRing;
import io.farm.core.placement.ReplicaSet;
import io.farm.core.region.Region;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * {@code farm demo}: a 3-node cluster in this JVM over the local fabric that exercises what
 * farm has: regions placed by the ring, one-sided reads of other nodes' memory (verified
 * byte for byte), messages between every pair of workers, and the fabric accounting.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Run a 3-node embedded cluster (local fabric): one-sided reads and messages between nodes, with the accounting.")
public final class DemoCommand implements java.util.concurrent.Callable<Integer> {
    private static final int OBJECT = 64;

    @Option(names = "--nodes", defaultValue = "3", description = "nodes (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--objects", defaultValue = "20000", description = "64-byte objects each node writes and the others read (default ${DEFAULT-VALUE})")
    int objects;

    @Option(names = "--pings", defaultValue = "200", description = "pings from every worker to every node (default ${DEFAULT-VALUE})")
    int pings;

    @Override
    public Integer call() throws Exception {
        if (objects < 1 || objects > 1_000_000) {
            throw new IllegalArgumentException("--objects " + objects + " is not accepted: 1..1000000");
        }
        ClusterConfig config = ClusterConfig.builder().name("demo-" + ProcessHandle.current().pid()).memberCount(nodes)
            .fabric("local").build();
        say("Starting a %d-node cluster in this JVM: fabric local, %d workers per node, %d backups per region, %s regions%n",
            config.size(), config.threads(), config.backups(), bytes(config.regionSize()));
        try (EmbeddedCluster cluster = EmbeddedCluster.start(config)) {
            PlacementRing placement = config.placement();
            int[] regionIds = new int[nodes];
            SplittableRandom random = new SplittableRandom(7);
            say("%n%-6s %-14s %-10s %-12s %s%n", "node", "data region", "primary", "backups", "file");
            for (Node node : cluster.nodes()) {
                int regionId = placement.regionIdWithPrimary(node.id(), random);
                Region region = node.createRegion(regionId, config.regionSize());
                fill(region, objects);
                regionIds[node.id()] = regionId;
                ReplicaSet replicas = placement.replicas(regionId);
                List<Integer> backups = new ArrayList<>();
                for (int i = 1; i < replicas.size(); i++) {
                    backups.add(replicas.node(i));
                }
                say("%-6d %-14s %-10d %-12s %s%n", node.id(), RegionId.toString(regionId), replicas.primary(), backups,
                    region.file());
            }
            FabricStats[] before = stats(cluster);

            say("%nOne-sided reads: every node reads the %d objects every other node wrote, and checks each byte%n", objects);
            long start = System.nanoTime();
            List<CompletableFuture<Long>> reads = new ArrayList<>();
            for (Node node : cluster.nodes()) {
                reads.add(node.submit(0, worker -> readAndVerify(worker, regionIds)));
            }
            long verified = 0;
            for (CompletableFuture<Long> read : reads) {
                verified += read.get(60, TimeUnit.SECONDS);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            say("  %,d objects verified (%s) in %.2f s: %,.0f reads/s%n", verified, bytes(verified * OBJECT), seconds,
                verified / seconds);
            FabricStats[] afterReads = stats(cluster);

            say("%nMessages: every worker pings every node %d times over the message rings%n", pings);
            Histogram rtt = new Histogram(60_000_000_000L, 3);
            for (Node node : cluster.nodes()) {
                for (int w = 0; w < config.threads(); w++) {
                    for (int peer = 0; peer < nodes; peer++) {
                        int target = peer;
                        for (int i = 0; i < pings; i++) {
                            rtt.recordValue(node.submit(w, worker -> worker.ping(target)).get(30, TimeUnit.SECONDS));
                        }
                    }
                }
            }
            say("  %,d round trips: p50 %.1f us, p99 %.1f us%n", rtt.getTotalCount(),
                rtt.getValueAtPercentile(50) / 1e3, rtt.getValueAtPercentile(99) / 1e3);
            FabricStats[] afterPings = stats(cluster);

            say("%nAccounting (operations each node issued; a message also counts as the write that carried it)%n");
            say("%-6s %-10s %10s %12s %10s %12s %10s %12s%n", "node", "phase", "reads", "read B", "writes", "write B",
                "messages", "message B");
            for (int id = 0; id < nodes; id++) {
                row(id, "reads", afterReads[id].minus(before[id]));
                row(id, "pings", afterPings[id].minus(afterReads[id]));
            }
            say("%nThe local fabric copies with the issuing worker's CPU only: the target's workers took no part in the reads.%n");
        }
        say("Cluster stopped; its files are removed.%n");
        return 0;
    }

    private static void fill(Region region, int objects) {
        MemorySegment memory = region.memory();
        for (long i = 0; i < (long) objects * OBJECT; i += 8) {
            memory.set(ValueLayout.JAVA_LONG, i, pattern(region.id(), i));
        }
    }

    private static long pattern(int regionId, long offset) {
        long x = GlobalAddress.of(regionId, offset) * 0x9E3779B97F4A7C15L;
        return x ^ (x >>> 29);
    }

    /** Reads every object of every other node's region one-sided and checks it; runs on the worker. */
    private CompletionStage<Long> readAndVerify(NodeWorker worker, int[] regionIds) {
        CompletableFuture<Long> done = new CompletableFuture<>();
        MemorySegment buffer = Arena.ofAuto().allocate((long) objects * OBJECT, 64);
        long[] verified = {0};
        int[] outstanding = {0};
        List<Capability> targets = new ArrayList<>();
        for (int peer = 0; peer < nodes; peer++) {
            if (peer != worker.node().id()) {
                targets.add(worker.capability(peer, regionIds[peer]));
            }
        }
        readNext(worker, targets, 0, buffer, verified, outstanding, done);
        return done;
    }

    private void readNext(NodeWorker worker, List<Capability> targets, int index, MemorySegment buffer, long[] verified,
                          int[] outstanding, CompletableFuture<Long> done) {
        if (index == targets.size()) {
            done.complete(verified[0]);
            return;
        }
        Capability target = targets.get(index);
        outstanding[0] = objects;
        for (int k = 0; k < objects; k++) {
            long offset = (long) k * OBJECT;
            worker.port().read(target, offset, OBJECT, buffer, offset, failure -> {
                if (failure != null) {
                    done.completeExceptionally(failure);
                    return;
                }
                for (long i = 0; i < OBJECT; i += 8) {
                    if (buffer.get(ValueLayout.JAVA_LONG, offset + i) != pattern(target.regionId(), offset + i)) {
                        done.completeExceptionally(new IllegalStateException("object at " + GlobalAddress.toString(
                            GlobalAddress.of(target.regionId(), offset)) + " read from node " + target.node() + " is wrong"));
                        return;
                    }
                }
                verified[0]++;
                if (--outstanding[0] == 0) {
                    readNext(worker, targets, index + 1, buffer, verified, outstanding, done);
                }
            });
        }
    }

    private static FabricStats[] stats(EmbeddedCluster cluster) {
        return cluster.nodes().stream().map(Node::stats).toArray(FabricStats[]::new);
    }

    private static void row(int id, String phase, FabricStats s) {
        say("%-6d %-10s %,10d %12s %,10d %12s %,10d %12s%n", id, phase, s.readOps(), bytes(s.readBytes()), s.writeOps(),
            bytes(s.writeBytes()), s.messageOps(), bytes(s.messageBytes()));
    }

    private static String bytes(long n) {
        if (n >= 1L << 30) {
            return String.format("%.1f GiB", n / (double) (1L << 30));
        }
        if (n >= 1L << 20) {
            return String.format("%.1f MiB", n / (double) (1L << 20));
        }
        if (n >= 1L << 10) {
            return String.format("%.1f KiB", n / 1024.0);
        }
        return n + " B";
    }

    private static void say(String format, Object... args) {
        System.out.printf(format, args);
    }
}
