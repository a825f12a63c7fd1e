package io.farm.bench.ycsb;

import io.farm.bench.NodeProcessOptions;
import io.farm.core.Farm;
import io.farm.core.cluster.EmbeddedCluster;
import io.farm.core.cluster.Node;
import io.farm.core.config.ClusterConfig;
import io.farm.hashtable.HashTables;
import io.farm.hashtable.ycsb.FieldMerge;
import io.farm.hashtable.ycsb.FarmDB;
import io.farm.hashtable.ycsb.YcsbNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;

/**
 * {@code farm ycsb PHASES -P FILE ...}: YCSB with the farm hashtable binding ({@link FarmDB}).
 * The phases (load, run, or both in order) run in this JVM through YCSB's client classes
 * ({@link YcsbPhase}), on an embedded 3-node cluster (local fabric, 2 backups) by default, or,
 * with {@code --config} and {@code --id}, as one node of a static shm cluster whose other members
 * run {@code farm node}. The records live in the cluster's memory and go when it stops, so a run
 * phase needs the load phase in the same invocation ({@code load+run}).
 */
@Command(name = "ycsb", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Run YCSB phases with the farm hashtable binding, in this JVM: on an embedded 3-node cluster "
        + "(local fabric, 2 backups), or with --config/--id as one node of a static shm cluster whose other nodes run "
        + "'farm node'. Records live only as long as this command: a run phase needs the load phase in the same "
        + "invocation (load+run).",
        "Workloads A-F: -P workloada .. workloadf (shipped), or a file by path."})
public final class YcsbCommand implements Callable<Integer> {
    /** Where the six core workloads ship, on the classpath and under farm-bench/src/main/resources. */
    static final String WORKLOADS = "ycsb/";
    private static final String BINDING = FarmDB.class.getName();

    @Parameters(index = "0", paramLabel = "PHASES", description = "load, run, or load+run (phases in order, joined by + or ,)")
    String phases;

    @Option(names = "-P", paramLabel = "FILE", required = true,
        description = "workload property file, by path or as a shipped name (workloada .. workloadf); repeatable, later files win")
    List<String> workloadFiles;

    @Option(names = "-p", paramLabel = "KEY=VALUE", description = "a YCSB or binding property; overrides the files")
    Map<String, String> properties = new LinkedHashMap<>();

    @Option(names = "-threads", paramLabel = "N", description = "YCSB client threads (YCSB's threadcount)")
    Integer threads;

    @Option(names = "-target", paramLabel = "OPS", description = "target operations per second over all threads")
    Integer target;

    @Option(names = "-s", description = "print YCSB's status every status.interval seconds (10) on stderr")
    boolean status;

    @Option(names = "-l", paramLabel = "LABEL", description = "label of the status lines")
    String label;

    @Option(names = "--config", paramLabel = "FILE", description = "join this static shm cluster (docs/configuration.md) as node --id")
    Path config;

    @Option(names = "--id", paramLabel = "N", description = "this process's node id in --config")
    Integer id;

    @Option(names = "--peer-timeout", paramLabel = "S", defaultValue = "60", description = "seconds to wait for the other members with --config (default ${DEFAULT-VALUE})")
    int peerTimeout;

    @Option(names = "--workers", paramLabel = "N", defaultValue = "2", description = "workers per node of the embedded cluster (default ${DEFAULT-VALUE})")
    int workers;

    @Option(names = "--region-size", paramLabel = "BYTES", defaultValue = "67108864", description = "region size of the embedded cluster, bytes, a power of two (default 64 MiB)")
    long regionSize;

    @Override
    public Integer call() throws IOException {
        List<Boolean> runPhases = phases(phases);
        Properties props = properties();
        if ((config == null) != (id == null)) {
            throw new IllegalArgumentException("--config and --id go together: --config names the static cluster, --id this"
                + " process's node in it");
        }
        if (config != null) {
            return onStaticCluster(runPhases, props);
        }
        ClusterConfig cluster = ClusterConfig.builder().name("ycsb-" + ProcessHandle.current().pid()).memberCount(3)
            .backups(2).fabric("local").threads(workers).regionSize(regionSize).build();
        System.err.printf("farm: YCSB on an embedded %d-node cluster (local fabric, %d backups, %d workers per node); "
            + "client threads use node 0%n", cluster.size(), cluster.backups(), cluster.threads());
        try (EmbeddedCluster embedded = EmbeddedCluster.start(cluster)) {
            List<Farm> farms = Farm.attachAll(embedded.nodes());
            List<HashTables> tables = HashTables.attachAll(farms);
            tables.forEach(FieldMerge::register);
            return runPhases(runPhases, props, farms.getFirst(), tables.getFirst());
        }
    }

    private int onStaticCluster(List<Boolean> runPhases, Properties props) {
        ClusterConfig cluster = NodeProcessOptions.cluster(config, id,
            "; without --config farm ycsb starts an embedded cluster itself");
        try (Node node = NodeProcessOptions.start(cluster, id)) {
            // Attached before the node answers its peers, as 'farm node' does: a member that answers serves RPCs.
            Farm farm = Farm.attach(node);
            HashTables tables = HashTables.attach(farm);
            FieldMerge.register(tables);
            node.announce();
            node.awaitPeers(Duration.ofSeconds(peerTimeout));
            System.err.printf("farm: YCSB as node %d of cluster %s (%d members, %d workers per node)%n", id, cluster.name(),
                cluster.size(), cluster.threads());
            return runPhases(runPhases, props, farm, tables);
        }
    }

    private static int runPhases(List<Boolean> runPhases, Properties props, Farm farm, HashTables tables) {
        try (YcsbNode ignored = YcsbNode.bind(farm, tables)) {
            int exit = 0;
            for (boolean transactions : runPhases) {
                String name = transactions ? "run" : "load";
                System.err.println("farm: YCSB " + name + " phase");
                YcsbPhase.Outcome outcome;
                try {
                    outcome = YcsbPhase.run(props, transactions, System.out);
                } catch (IOException e) {
                    throw new IllegalStateException("YCSB could not export its measurements: " + e.getMessage(), e);
                }
                System.out.flush();
                boolean timeLimited = Integer.parseInt(props.getProperty("maxexecutiontime", "0").trim()) > 0;
                if (outcome.done() < outcome.requested() && !timeLimited) {
                    System.err.println("farm: YCSB " + name + " phase did " + outcome.done() + " of " + outcome.requested()
                        + " operations: a client thread stopped early (its error is printed above)");
                    exit = 1;
                }
            }
            return exit;
        }
    }

    /** The phases in order: false is load, true is run. */
    static List<Boolean> phases(String spec) {
        List<Boolean> list = new ArrayList<>();
        for (String phase : spec.split("[+,]", -1)) {
            switch (phase.trim()) {
                case "load" -> list.add(false);
                case "run" -> list.add(true);
                default -> throw new IllegalArgumentException("phases " + spec + " are not accepted: load, run, or both in"
                    + " order joined by + or , (load+run)");
            }
        }
        return list;
    }

    private Properties properties() throws IOException {
        Properties props = new Properties();
        for (String file : workloadFiles) {
            props.putAll(workloadFile(file));
        }
        props.putAll(properties);
        String db = props.getProperty("db");
        if (db != null && !db.equals(BINDING)) {
            throw new IllegalArgumentException("db=" + db + " is not accepted: farm ycsb runs the farm binding, " + BINDING);
        }
        props.setProperty("db", BINDING);
        if (threads != null) {
            props.setProperty("threadcount", Integer.toString(threads));
        }
        if (target != null) {
            props.setProperty("target", Integer.toString(target));
        }
        if (status) {
            props.setProperty("status", "true");
        }
        if (label != null) {
            props.setProperty("label", label);
        }
        return props;
    }

    /** A workload file by path, else one of the shipped workloads by name (workloada .. workloadf). */
    static Properties workloadFile(String file) throws IOException {
        Properties props = new Properties();
        Path path = Path.of(file);
        if (Files.isRegularFile(path)) {
            try (InputStream in = Files.newInputStream(path)) {
                props.load(in);
            }
            return props;
        }
        try (InputStream in = YcsbCommand.class.getClassLoader().getResourceAsStream(WORKLOADS + file)) {
            if (in == null) {
                throw new IllegalArgumentException("-P " + file + " is not accepted: no such file, nor a shipped workload "
                    + "(workloada .. workloadf, in farm-bench/src/main/resources/ycsb)");
            }
            props.load(in);
        }
        return props;
    }
}
