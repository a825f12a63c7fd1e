package io.farm.bench.fabric;

import io.farm.bench.report.BenchOptions;
import io.farm.bench.report.JsonObject;
import io.farm.core.cluster.JvmProcess;
import io.farm.core.cluster.Node;
import io.farm.core.fabric.Capability;
import io.farm.core.fabric.FabricStats;
import io.farm.core.fabric.PeerUnreachableException;
import io.farm.core.fabric.UnregisteredRegionException;
import io.farm.core.fabric.local.LocalNetwork;
import io.farm.core.fabric.shm.ShmFabric;
import io.farm.core.config.ClusterConfig;
import io.farm.core.region.RegionStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code farm bench fabric}: the analog of FaRM's Figures 2 and 3 between two nodes. Node 0
 * reads random SIZE-byte blocks of node 1's region, first with one-sided reads, then as
 * request/response messages over the message rings; a third phase copies random SIZE-byte
 * blocks from a local mapped region of the same size in one thread (the physical limit).
 */
@Command(name = "fabric", mixinStandardHelpOptions = true,
    description = {"Random reads between two nodes: one-sided vs. RPC over message rings vs. raw local copies.",
        "On shm the server node is a second process."})
public final class FabricBenchCommand implements Callable<Integer> {
    @Option(names = "--fabric", defaultValue = "local", description = "local or shm (default ${DEFAULT-VALUE})")
    String fabric;

    @Option(names = "--size", defaultValue = "64", description = "bytes per read, 1.." + (ReadProtocol.MAX_RESPONSE - 8)
        + " (default ${DEFAULT-VALUE})")
    int size;

    @Option(names = "--seconds", defaultValue = "4", description = "seconds per phase (default ${DEFAULT-VALUE})")
    double seconds;

    @Option(names = "--depth", defaultValue = "64", description = {"reads in flight from the client worker (default ${DEFAULT-VALUE},",
        "like the many outstanding reads of a NIC at peak throughput; --depth 1 measures unloaded latency)"})
    int depth;

    @Option(names = "--region-size", defaultValue = "2147483648",
        description = "size of the region read, a power of two (default ${DEFAULT-VALUE}: farm's region size)")
    long regionSize;

    @Option(names = "--idle", defaultValue = "backoff", description = {"workers' idle strategy (default ${DEFAULT-VALUE},",
        "the nodes' default: a busy worker never parks; spin or yield keep an idle one polling)"})
    String idle;

    @Mixin
    BenchOptions options;

    @Override
    public Integer call() throws Exception {
        if (size < 1 || size > ReadProtocol.MAX_RESPONSE - 8) {
            throw new IllegalArgumentException("--size " + size + " is not accepted: 1.." + (ReadProtocol.MAX_RESPONSE - 8));
        }
        BenchOptions.checkRange("--depth", depth, 1, 1024);
        BenchOptions.checkSeconds(seconds);
        if (!fabric.equals("local") && !fabric.equals("shm")) {
            throw new IllegalArgumentException("--fabric " + fabric + " is not accepted: local or shm");
        }
        String name = "bench-fabric-" + ProcessHandle.current().pid();
        ClusterConfig config = BenchCluster.config(name, fabric, regionSize, idle, options.dataDir(name));
        if (size > regionSize) {
            throw new IllegalArgumentException("--size " + size + " is not accepted with --region-size " + regionSize
                + ": a read must fit in the region, so at most " + regionSize);
        }
        long phaseNanos = (long) (seconds * 1e9);
        int regionId = BenchCluster.serverRegionId(config);
        List<AutoCloseable> resources = new ArrayList<>();
        try {
            // The baseline runs first, alone: no worker of any node competes with it for a core.
            Files.createDirectories(config.dataDir());
            PhaseResult raw = RawCopies.run(config.dataDir(), regionSize, size, phaseNanos, 3);
            progress("raw copy:  %,.0f copies/s%n", raw.opsPerSecond());
            Node client;
            if (fabric.equals("local")) {
                LocalNetwork network = new LocalNetwork();
                client = Node.start(config, 0, network.attach(0));
                resources.add(client);
                Node server = Node.start(config, 1, network.attach(1));
                resources.add(server);
                ReadServer.install(server, regionId, regionSize);
            } else {
                Path configFile = config.dataDir().resolve("cluster.properties");
                config.store(configFile);
                JvmProcess server = JvmProcess.start("fabric benchmark server", config.dataDir().resolve("node-1.log"),
                    List.of("-Xmx256m"), "io.farm.bench.FarmMain", List.of("bench", "fabric-server",
                        "--config", configFile.toString(), "--id", "1", "--region-id", Integer.toString(regionId)));
                resources.add(server);
                client = Node.start(config, 0, ShmFabric.open(config.dataDir(), 0));
                resources.add(0, client);
                server.awaitReady(Duration.ofSeconds(60));
            }
            RpcReads[] rpc = new RpcReads[1];
            client.registerHandler(ReadProtocol.RESPONSE, (worker, sender, type, payload, offset, length) ->
                rpc[0].onResponse(payload, offset, length));
            client.awaitPeers(Duration.ofSeconds(60));
            Capability target = awaitCapability(client, 1, regionId);

            progress("fabric %s, %d-byte reads, depth %d, %s s per phase%n", fabric, size, depth, seconds);
            FabricStats before = client.stats();
            PhaseResult oneSided = client.submit(0, w ->
                new OneSidedReads(w.port(), target, size, depth, phaseNanos, 1).start()).get(phaseNanos * 4 + 30_000_000_000L, TimeUnit.NANOSECONDS);
            FabricStats afterOneSided = client.stats();
            progress("one-sided: %,.0f reads/s%n", oneSided.opsPerSecond());
            PhaseResult rpcResult = client.submit(0, w -> {
                rpc[0] = new RpcReads(w.messenger(), 1, regionSize, size, depth, phaseNanos, 2);
                return rpc[0].start();
            }).get(phaseNanos * 4 + 30_000_000_000L, TimeUnit.NANOSECONDS);
            FabricStats afterRpc = client.stats();
            progress("rpc:       %,.0f reads/s%n", rpcResult.opsPerSecond());

            FabricStats oneSidedStats = afterOneSided.minus(before);
            FabricStats rpcStats = afterRpc.minus(afterOneSided);
            JsonObject result = new JsonObject()
                .put("benchmark", "fabric")
                .put("fabric", fabric)
                .put("size", size)
                .put("depth", depth)
                .put("seconds_per_phase", seconds)
                .put("region_size", regionSize)
                .put("one_sided_ops_per_s", oneSided.opsPerSecond())
                .put("rpc_ops_per_s", rpcResult.opsPerSecond())
                .put("raw_copy_ops_per_s", raw.opsPerSecond())
                .put("one_sided_over_rpc", oneSided.opsPerSecond() / rpcResult.opsPerSecond())
                .put("one_sided_over_raw", oneSided.opsPerSecond() / raw.opsPerSecond())
                .put("one_sided_p50_us", oneSided.percentileMicros(50))
                .put("one_sided_p99_us", oneSided.percentileMicros(99))
                .put("rpc_p50_us", rpcResult.percentileMicros(50))
                .put("rpc_p99_us", rpcResult.percentileMicros(99))
                .put("one_sided_ops", oneSided.operations())
                .put("rpc_ops", rpcResult.operations())
                .put("raw_copy_ops", raw.operations())
                .put("one_sided_accounting", accounting(oneSidedStats))
                .put("rpc_accounting", accounting(rpcStats))
                .put("one_sided_reads_per_op", (double) oneSidedStats.readOps() / oneSided.operations())
                .put("rpc_messages_per_op", (double) rpcStats.messageOps() / rpcResult.operations());
            report(result);
            return 0;
        } finally {
            BenchCluster.closeAll(resources);
            RegionStore.deleteTree(config.dataDir());
        }
    }

    private static Capability awaitCapability(Node client, int node, int regionId) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                return client.capability(node, regionId);
            } catch (UnregisteredRegionException | PeerUnreachableException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the benchmark server did not register its region in time: " + e.getMessage());
                }
                Thread.sleep(10);
            }
        }
    }

    static JsonObject accounting(FabricStats stats) {
        return new JsonObject()
            .put("read_ops", stats.readOps()).put("read_bytes", stats.readBytes())
            .put("write_ops", stats.writeOps()).put("write_bytes", stats.writeBytes())
            .put("message_ops", stats.messageOps()).put("message_bytes", stats.messageBytes());
    }

    private void report(JsonObject result) {
        System.err.printf(Locale.ROOT, "%n%-22s %14s %10s %10s%n", "", "ops/s", "p50 us", "p99 us");
        System.err.printf(Locale.ROOT, "%-22s %,14.0f %10.2f %10.2f%n", "one-sided reads",
            (double) result.get("one_sided_ops_per_s"), (double) result.get("one_sided_p50_us"), (double) result.get("one_sided_p99_us"));
        System.err.printf(Locale.ROOT, "%-22s %,14.0f %10.2f %10.2f%n", "rpc reads (messages)",
            (double) result.get("rpc_ops_per_s"), (double) result.get("rpc_p50_us"), (double) result.get("rpc_p99_us"));
        System.err.printf(Locale.ROOT, "%-22s %,14.0f%n", "raw local copies", (double) result.get("raw_copy_ops_per_s"));
        System.err.printf(Locale.ROOT, "one-sided / rpc = %.2f, one-sided / raw = %.2f%n",
            (double) result.get("one_sided_over_rpc"), (double) result.get("one_sided_over_raw"));
        System.err.println("accounting, one-sided phase: " + result.get("one_sided_accounting"));
        System.err.println("accounting, rpc phase:       " + result.get("rpc_accounting"));
        options.print(result);
    }

    private void progress(String format, Object... args) {
        System.err.printf(Locale.ROOT, format, args);
    }
}
