package io.farm.core.tx;

import io.farm.core.cluster.NodeWorker;
import io.farm.core.object.ObjectBuffer;
import io.farm.core.object.ObjectLayout;
import io.farm.core.testing.Liveness;
import io.farm.core.testing.ShmTempDirs;
import io.farm.core.tx.history.CheckReport;
import io.farm.core.tx.history.History;
import io.farm.core.tx.history.HistoryRecorder;
import io.farm.core.tx.history.InitialVersions;
import io.farm.core.tx.history.SerializabilityChecker;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Generated concurrent workloads of transactions over 8-byte counters, run on every worker of a
 * 3-node embedded cluster (local fabric, 2 backups per region, 2 workers per node) with history
 * recording on, then checked: the history is strictly serializable, every read of a version saw
 * the value written with that version, every committed increment is in the final values, no
 * object is left locked, and every backup converges to its primary's copy.
 */
class ConcurrentHistoryProperties {
    private static final int NODES = 3;
    private static final int THREADS = 2;
    private static final int BACKUPS = 2;
    /** Enough attempts that a transaction under this contention always commits in the end. */
    private static final int ATTEMPTS = 1_000;
    private static final int HISTORY_PER_THREAD = 10_000;

    private static Path dataDir;
    private static TxCluster cluster;

    @BeforeContainer
    static void start() throws IOException {
        dataDir = ShmTempDirs.newDirectory();
        cluster = new TxCluster("txhistory", NODES, BACKUPS, THREADS, dataDir);
    }

    @AfterContainer
    static void stop() throws IOException {
        if (cluster != null) {
            cluster.close(); // deletes its data directory
        } else {
            Files.deleteIfExists(dataDir);
        }
    }

    @Property(tries = 10, shrinking = ShrinkingMode.OFF)
    void concurrentTransactionsAreStrictlySerializableAndLoseNoCommittedWrite(@ForAll("workloads") Workload workload)
        throws Exception {
        int objects = workload.primaries().length;
        long[] addresses = new long[objects];
        long[] initialValues = new long[objects];
        InitialVersions initialVersions = new InitialVersions();
        Versions versions = new Versions();
        for (int i = 0; i < objects; i++) {
            initialValues[i] = 1_000_000L * i;
            addresses[i] = cluster.create(workload.primaries()[i], longBytes(initialValues[i]));
            long address = addresses[i];
            long version = cluster.execute(i % NODES, 0, tx -> tx.txRead(address, Long.BYTES).thenApply(ObjectBuffer::version));
            initialVersions.register(address, version);
            versions.observe(address, version, initialValues[i]);
        }

        HistoryRecorder recorder = new HistoryRecorder(HISTORY_PER_THREAD);
        cluster.farms().forEach(farm -> farm.transactions().recordHistory(recorder));
        Outcome outcome = new Outcome(objects, versions);
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        try {
            for (int node = 0; node < NODES; node++) {
                for (int worker = 0; worker < THREADS; worker++) {
                    int n = node;
                    List<TxSpec> transactions = workload.transactions(node, worker);
                    runs.add(cluster.cluster().node(node).submit(worker,
                        w -> runInTurn(n, w, transactions, 0, addresses, outcome)));
                }
            }
            Liveness.await(CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)));
        } finally {
            cluster.farms().forEach(farm -> farm.transactions().recordHistory(null));
        }

        assertEquals(workload.transactionCount(), outcome.committed.get(), "every transaction commits in the end");
        assertEquals(List.of(), List.copyOf(versions.mismatches), "reads of one version saw one value");

        History history = recorder.history();
        assertTrue(history.complete(), () -> history.dropped() + " commits dropped by the recorder");
        assertEquals(workload.transactionCount(), history.transactions().size(), "one record per committed transaction");
        CheckReport report = SerializabilityChecker.strict(initialVersions).check(history);
        assertEquals(0, report.cycleCount(), report::toString);
        assertEquals(List.of(), report.impossibilities(), report::toString);

        for (int i = 0; i < objects; i++) {
            long expected = initialValues[i] + outcome.added.get(i);
            assertEquals(expected, longOf(cluster.read((i + 1) % NODES, addresses[i], Long.BYTES)),
                "object " + i + ": its initial value plus every committed increment");
        }
        for (int i = 0; i < objects; i++) {
            long address = addresses[i];
            int primary = workload.primaries()[i];
            Liveness.awaitCondition("object " + i + " unlocked at its primary, node " + primary,
                () -> ObjectLayout.lockMode(cluster.versionWord(primary, address)) == ObjectLayout.UNLOCKED);
            byte[] committed = cluster.copyAt(primary, address, Long.BYTES);
            long versionWord = cluster.versionWord(primary, address);
            for (int backup : cluster.farm(0).transactions().backupsOf(address)) {
                Liveness.awaitCondition("backup " + backup + " of object " + i + " equals its primary's copy",
                    () -> Arrays.equals(committed, cluster.copyAt(backup, address, Long.BYTES))
                        && cluster.versionWord(backup, address) == versionWord);
            }
        }
    }

    /** Runs {@code transactions} from {@code next} on, one after the other, each with {@code execute}. */
    private static CompletionStage<Void> runInTurn(int node, NodeWorker worker, List<TxSpec> transactions, int next,
                                                   long[] addresses, Outcome outcome) {
        if (next == transactions.size()) {
            return CompletableFuture.completedFuture(null);
        }
        TxSpec spec = transactions.get(next);
        return cluster.farm(node).transactions().execute(worker, ATTEMPTS, tx -> spec.run(tx, addresses))
            .thenCompose(observed -> {
                outcome.committed(observed);
                return runInTurn(node, worker, transactions, next + 1, addresses, outcome);
            });
    }

    // ---- workloads ----

    @Provide
    Arbitrary<Workload> workloads() {
        // Every node is the primary of at least one object, so every worker can run single-machine transactions.
        Arbitrary<List<Integer>> morePrimaries = Arbitraries.integers().between(0, NODES - 1).list().ofMinSize(1).ofMaxSize(9);
        return morePrimaries.flatMap(more -> {
            int[] primaries = IntStream.concat(IntStream.range(0, NODES), more.stream().mapToInt(Integer::intValue)).toArray();
            List<Arbitrary<List<TxSpec>>> workers = new ArrayList<>();
            for (int node = 0; node < NODES; node++) {
                for (int worker = 0; worker < THREADS; worker++) {
                    workers.add(transaction(primaries, node).list().ofMinSize(30).ofMaxSize(60));
                }
            }
            return Combinators.combine(workers).as(lists -> new Workload(primaries, lists));
        });
    }

    private static Arbitrary<TxSpec> transaction(int[] primaries, int node) {
        int objects = primaries.length;
        Arbitrary<Integer> any = Arbitraries.integers().between(0, objects - 1);
        List<Integer> local = IntStream.range(0, objects).filter(i -> primaries[i] == node).boxed().toList();
        Arbitrary<TxSpec> readWrite = steps(any, Math.min(objects, 4)).map(steps -> new TxSpec(Kind.READ_WRITE, steps));
        Arbitrary<TxSpec> readOne = any.map(i -> new TxSpec(Kind.READ_ONLY, List.of(new Step(i, false, 0))));
        Arbitrary<TxSpec> readMany = any.list().uniqueElements().ofMinSize(2).ofMaxSize(Math.min(objects, 5))
            .map(indices -> new TxSpec(Kind.READ_ONLY, indices.stream().map(i -> new Step(i, false, 0)).toList()));
        Arbitrary<TxSpec> singleMachine = steps(Arbitraries.of(local), Math.min(local.size(), 3))
            .map(steps -> new TxSpec(Kind.SINGLE_MACHINE, steps));
        return Arbitraries.frequencyOf(
            Tuple.of(6, readWrite), Tuple.of(1, readOne), Tuple.of(2, readMany), Tuple.of(3, singleMachine));
    }

    /** 1 to {@code most} distinct objects, each read and, with probability one half, incremented. */
    private static Arbitrary<List<Step>> steps(Arbitrary<Integer> objects, int most) {
        return Combinators.combine(objects, Arbitraries.of(true, false), Arbitraries.longs().between(1, 1_000))
            .as(Step::new).list().uniqueElements(Step::object).ofMinSize(1).ofMaxSize(most);
    }

    enum Kind { READ_WRITE, READ_ONLY, SINGLE_MACHINE }

    /** One object a transaction reads, and whether it adds {@code delta} to it. */
    record Step(int object, boolean write, long delta) {
        @Override
        public String toString() {
            return write ? object + "+" + delta : Integer.toString(object);
        }
    }

    /** A transaction: its objects, all read at once, then the increments written. */
    record TxSpec(Kind kind, List<Step> steps) {
        /** The body for {@code execute}: what it saw and wrote, reported once it commits. */
        CompletionStage<List<Observation>> run(Transaction tx, long[] addresses) {
            List<CompletionStage<ObjectBuffer>> reads = new ArrayList<>();
            for (Step step : steps) {
                reads.add(tx.txRead(addresses[step.object()], Long.BYTES));
            }
            return ParallelReads.all(reads).thenApply(buffers -> {
                List<Observation> observed = new ArrayList<>();
                for (int i = 0; i < steps.size(); i++) {
                    Step step = steps.get(i);
                    ObjectBuffer buffer = buffers.get(i);
                    long address = addresses[step.object()];
                    long version = buffer.version();
                    long value = longOf(buffer.toByteArray());
                    observed.add(new Observation(step.object(), address, version, value, 0));
                    if (step.write()) {
                        tx.txWrite(buffer, longBytes(value + step.delta()));
                        observed.add(new Observation(step.object(), address, ObjectLayout.nextVersion(version),
                            value + step.delta(), step.delta()));
                    }
                }
                return observed;
            });
        }

        @Override
        public String toString() {
            return kind.name().charAt(0) + steps.toString();
        }
    }

    /** The objects' primaries, and per worker (node * THREADS + worker) the transactions it runs in turn. */
    record Workload(int[] primaries, List<List<TxSpec>> perWorker) {
        List<TxSpec> transactions(int node, int worker) {
            return perWorker.get(node * THREADS + worker);
        }

        int transactionCount() {
            return perWorker.stream().mapToInt(List::size).sum();
        }

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder("primaries ").append(Arrays.toString(primaries))
                .append(", ").append(transactionCount()).append(" transactions");
            for (int w = 0; w < perWorker.size(); w++) {
                text.append("\n  node ").append(w / THREADS).append(" worker ").append(w % THREADS).append(": ")
                    .append(perWorker.get(w));
            }
            return text.toString();
        }
    }

    /** A version of an object a committed transaction read ({@code added} 0) or wrote, with its value. */
    record Observation(int object, long address, long version, long value, long added) {
    }

    /** A version of the object at an address. */
    record VersionOf(long address, long version) {
    }

    /** The value of every observed version; two different values for one version are a mismatch. */
    static final class Versions {
        private final Map<VersionOf, Long> values = new ConcurrentHashMap<>();
        private final Queue<String> mismatches = new ConcurrentLinkedQueue<>();

        void observe(long address, long version, long value) {
            Long known = values.putIfAbsent(new VersionOf(address, version), value);
            if (known != null && known != value) {
                mismatches.add("object at " + Long.toHexString(address) + " version " + version + " seen with value "
                    + value + " and with value " + known);
            }
        }
    }

    /** What the committed transactions did. */
    static final class Outcome {
        final AtomicInteger committed = new AtomicInteger();
        final AtomicLongArray added;
        private final Versions versions;

        Outcome(int objects, Versions versions) {
            this.added = new AtomicLongArray(objects);
            this.versions = versions;
        }

        void committed(List<Observation> observed) {
            committed.incrementAndGet();
            for (Observation observation : observed) {
                versions.observe(observation.address(), observation.version(), observation.value());
                added.addAndGet(observation.object(), observation.added());
            }
        }
    }

    private static byte[] longBytes(long value) {
        return ByteBuffer.allocate(Long.BYTES).order(ByteOrder.nativeOrder()).putLong(value).array();
    }

    private static long longOf(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder()).getLong();
    }
}
