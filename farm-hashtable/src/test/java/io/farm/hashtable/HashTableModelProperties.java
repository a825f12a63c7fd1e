package io.farm.hashtable;

import io.farm.core.cluster.EmbeddedCluster;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A hashtable against a {@link HashMap} model, as jqwik action chains: inserts, updates, puts,
 * removes and gets from random nodes and workers of a 3-node cluster (2 backups). Every table
 * is one shard of 1 .. 4 home buckets with H = 2 or 4 and 1 .. 3 slots per overflow block, and
 * keys come from a small alphabet, so most keys live in overflow chains, keys repeat and
 * mutations displace pairs; values straddle the inline limit (some inline, some out of line).
 */
class HashTableModelProperties {
    private static final int NODES = TableCluster.NODES;
    private static final int WORKERS = TableCluster.WORKERS;
    private static final int MAX_KEY_LENGTH = 2;
    private static final int MAX_INLINE_VALUE = 8;
    private static final int MAX_VALUE_LENGTH = 20;

    private static final List<Integer> NEIGHBOURHOODS = List.of(2, 4);
    private static final int MAX_BUCKETS = 4;
    private static final int MAX_OVERFLOW_SLOTS = 3;
    /** Tables made per configuration before the tries; shrinking may need more, made then. */
    private static final int TABLES_PER_CONFIG = 5;
    /** The merge id of {@link #appended}. */
    private static final int APPEND = 1;

    private static final AtomicInteger TABLE_NUMBERS = new AtomicInteger();
    /**
     * Fresh tables by configuration, all created before any try frees memory: a table created
     * after removes may hang in its creation ({@link ArrayOverFreedObjectTest}).
     */
    private static final Map<HashTableConfig, Deque<String>> FRESH_TABLES = new HashMap<>();
    private static Path dataDir;
    private static EmbeddedCluster cluster;
    private static List<HashTables> tables;

    @BeforeContainer
    static void start() throws IOException {
        dataDir = Files.createTempDirectory("farm-hashtable-model");
        TableCluster started = TableCluster.start("hashtable-model", dataDir);
        cluster = started.cluster();
        tables = started.tables();
        tables.forEach(node -> node.registerMerge(APPEND, HashTableModelProperties::appended));
        for (int h : NEIGHBOURHOODS) {
            for (int buckets = 1; buckets <= MAX_BUCKETS; buckets++) {
                for (int blockSlots = 1; blockSlots <= MAX_OVERFLOW_SLOTS; blockSlots++) {
                    HashTableConfig config = config(h, buckets, blockSlots);
                    Deque<String> names = FRESH_TABLES.computeIfAbsent(config, ignored -> new ArrayDeque<>());
                    for (int i = 0; i < TABLES_PER_CONFIG; i++) {
                        names.add(createTable(config));
                    }
                }
            }
        }
    }

    /** The model's merge: the argument appended to the value, cut to the longest value. */
    private static byte[] appended(byte[] value, byte[] argument) {
        byte[] joined = Arrays.copyOf(value, Math.min(value.length + argument.length, MAX_VALUE_LENGTH));
        System.arraycopy(argument, 0, joined, value.length, joined.length - value.length);
        return joined;
    }

    private static HashTableConfig config(int h, int buckets, int blockSlots) {
        return new HashTableConfig(h, MAX_KEY_LENGTH, MAX_INLINE_VALUE, MAX_VALUE_LENGTH, 1, buckets, blockSlots);
    }

    /** Creates a table of {@code config}, from a node that changes from table to table; returns its name. */
    private static String createTable(HashTableConfig config) {
        int number = TABLE_NUMBERS.incrementAndGet();
        String name = "model-" + number;
        tables.get(number % NODES).createBlocking(name, config);
        return name;
    }

    @AfterContainer
    static void stop() throws IOException {
        try {
            cluster.close();
        } finally {
            if (!Files.exists(dataDir)) {
                return;
            }
            try (Stream<Path> files = Files.walk(dataDir)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
        }
    }

    @Property(tries = 40)
    void aCollidingTableBehavesLikeAHashMap(@ForAll("chains") ActionChain<ModelledTable> chain) {
        chain.run().checkEveryKeyCensusAndCollapse();
    }

    @Provide
    Arbitrary<ActionChain<ModelledTable>> chains() {
        Arbitrary<HashTableConfig> configs = Combinators.combine(Arbitraries.of(NEIGHBOURHOODS),
            Arbitraries.integers().between(1, MAX_BUCKETS), Arbitraries.integers().between(1, MAX_OVERFLOW_SLOTS))
            .as(HashTableModelProperties::config);
        return configs.flatMap(config -> ActionChain.startWith(() -> new ModelledTable(config))
            .withAction(3, mutation("insert", ModelledTable::insert))
            .withAction(2, mutation("update", ModelledTable::update))
            .withAction(3, mutation("put", ModelledTable::put))
            .withAction(2, mutation("merge", ModelledTable::merge))
            .withAction(2, removal())
            .withAction(2, lookup())
            .withMaxTransformations(50));
    }

    /** A mutation with a value: insert, update or put. */
    private interface ValueMutation {
        void apply(ModelledTable table, int node, int worker, byte[] key, byte[] value);
    }

    private static Action.Independent<ModelledTable> mutation(String name, ValueMutation mutation) {
        return () -> Combinators.combine(nodes(), workers(), keys(), values())
            .as((node, worker, key, value) -> Transformer.mutate(
                name + "(" + show(key) + ", " + show(value) + ") on node " + node + " worker " + worker,
                table -> mutation.apply(table, node, worker, key, value)));
    }

    private static Action.Independent<ModelledTable> removal() {
        return () -> Combinators.combine(nodes(), workers(), keys())
            .as((node, worker, key) -> Transformer.mutate("remove(" + show(key) + ") on node " + node + " worker " + worker,
                table -> table.remove(node, worker, key)));
    }

    private static Action.Independent<ModelledTable> lookup() {
        return () -> Combinators.combine(nodes(), workers(), keys())
            .as((node, worker, key) -> Transformer.mutate("get(" + show(key) + ") on node " + node + " worker " + worker,
                table -> table.check(node, worker, key)));
    }

    private static Arbitrary<Integer> nodes() {
        return Arbitraries.integers().between(0, NODES - 1);
    }

    private static Arbitrary<Integer> workers() {
        return Arbitraries.integers().between(0, WORKERS - 1);
    }

    /** 12 keys ("a" .. "cc"): they repeat, and collide in tables of 1 .. 16 bucket slots. */
    private static Arbitrary<byte[]> keys() {
        return Arbitraries.strings().withChars("abc").ofMinLength(1).ofMaxLength(MAX_KEY_LENGTH)
            .map(s -> s.getBytes(StandardCharsets.US_ASCII));
    }

    /** Values of 0 .. 20 bytes, often 7, 8 or 9: just inside or just outside the 8 inline bytes. */
    private static Arbitrary<byte[]> values() {
        Arbitrary<Integer> lengths = Arbitraries.frequencyOf(
            Tuple.of(1, Arbitraries.integers().between(MAX_INLINE_VALUE - 1, MAX_INLINE_VALUE + 1)),
            Tuple.of(1, Arbitraries.integers().between(0, MAX_VALUE_LENGTH)));
        return lengths.flatMap(length -> Arbitraries.bytes().array(byte[].class).ofSize(length));
    }

    private static String show(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    /** One fresh table, its view from every node, and the model it must agree with. */
    static final class ModelledTable {
        private final String name;
        private final HashTableConfig config;
        private final HashTable[] views = new HashTable[NODES];
        private final Map<ByteBuffer, ByteBuffer> model = new HashMap<>();
        private final Set<ByteBuffer> keysUsed = new HashSet<>();

        ModelledTable(HashTableConfig config) {
            this.config = config;
            String fresh = FRESH_TABLES.get(config).poll();
            this.name = fresh != null ? fresh : createTable(config);
            for (int node = 0; node < NODES; node++) {
                views[node] = tables.get(node).open(name);
            }
        }

        void insert(int node, int worker, byte[] key, byte[] value) {
            boolean expected = !model.containsKey(ByteBuffer.wrap(key));
            assertEquals(expected, views[node].insertBlocking(worker, key, value), () -> "insert outcome of " + show(key));
            if (expected) {
                model.put(ByteBuffer.wrap(key), ByteBuffer.wrap(value));
            }
            checkAfterMutation(node, worker, key);
        }

        void update(int node, int worker, byte[] key, byte[] value) {
            boolean expected = model.containsKey(ByteBuffer.wrap(key));
            assertEquals(expected, views[node].updateBlocking(worker, key, value), () -> "update outcome of " + show(key));
            if (expected) {
                model.put(ByteBuffer.wrap(key), ByteBuffer.wrap(value));
            }
            checkAfterMutation(node, worker, key);
        }

        void put(int node, int worker, byte[] key, byte[] value) {
            views[node].putBlocking(worker, key, value);
            model.put(ByteBuffer.wrap(key), ByteBuffer.wrap(value));
            checkAfterMutation(node, worker, key);
        }

        void merge(int node, int worker, byte[] key, byte[] argument) {
            ByteBuffer current = model.get(ByteBuffer.wrap(key));
            assertEquals(current != null, views[node].mergeBlocking(worker, key, APPEND, argument),
                () -> "merge outcome of " + show(key));
            if (current != null) {
                model.put(ByteBuffer.wrap(key), ByteBuffer.wrap(appended(current.array(), argument)));
            }
            checkAfterMutation(node, worker, key);
        }

        void remove(int node, int worker, byte[] key) {
            boolean expected = model.remove(ByteBuffer.wrap(key)) != null;
            assertEquals(expected, views[node].removeBlocking(worker, key), () -> "remove outcome of " + show(key));
            checkAfterMutation(node, worker, key);
        }

        /** Reads the mutated key back from the next node and the other worker: the mutation is visible everywhere. */
        private void checkAfterMutation(int node, int worker, byte[] key) {
            keysUsed.add(ByteBuffer.wrap(key));
            check((node + 1) % NODES, (worker + 1) % WORKERS, key);
        }

        void check(int node, int worker, byte[] key) {
            keysUsed.add(ByteBuffer.wrap(key));
            ByteBuffer expected = model.get(ByteBuffer.wrap(key));
            byte[] got = views[node].getBlocking(worker, key);
            if (expected == null) {
                assertNull(got, () -> "get(" + show(key) + ") on node " + node + " of absent key returned " + show(got));
            } else {
                assertArrayEquals(expected.array(), got, () -> "get(" + show(key) + ") on node " + node);
            }
        }

        /**
         * Gets every key ever used, from every node; checks the census against the model; then
         * removes every pair and checks the chains collapsed (no overflow blocks left).
         */
        void checkEveryKeyCensusAndCollapse() {
            for (int node = 0; node < NODES; node++) {
                for (ByteBuffer key : keysUsed) {
                    check(node, node % WORKERS, key.array());
                }
            }
            TableCensus census = census();
            long pairBytes = model.entrySet().stream()
                .mapToLong(e -> e.getKey().remaining() + e.getValue().remaining()).sum();
            long outOfLine = model.values().stream().filter(v -> v.remaining() > MAX_INLINE_VALUE).count();
            assertEquals(model.size(), census.pairs(), census::toString);
            assertEquals(pairBytes, census.pairBytes(), census::toString);
            assertEquals(outOfLine, census.outOfLineValues(), census::toString);
            assertEquals(config.bucketSlots(), census.bucketSlots(), census::toString);
            assertTrue(census.pairs() - census.pairsInBuckets() <= census.overflowBlocks() * config.overflowSlots(),
                () -> "pairs in chains fit in their blocks: " + census);
            Statistics.label("overflow blocks at the end").collect(census.overflowBlocks() == 0 ? "none" : "some");
            Statistics.label("out-of-line values at the end").collect(census.outOfLineValues() == 0 ? "none" : "some");

            for (ByteBuffer key : List.copyOf(model.keySet())) {
                remove(0, 0, key.array());
            }
            TableCensus empty = census();
            assertEquals(0, empty.pairs(), empty::toString);
            assertEquals(0, empty.overflowBlocks(), () -> "chains collapse when their pairs are removed: " + empty);
            assertEquals(0, empty.outOfLineValues(), empty::toString);
        }

        private TableCensus census() {
            int node = Math.floorMod(name.hashCode(), NODES);
            try {
                return cluster.node(node).submit(node % WORKERS, views[node]::census).get();
            } catch (Exception e) {
                throw new AssertionError("census of " + name + " failed", e);
            }
        }

        @Override
        public String toString() {
            return name + " " + config + " model of " + model.size() + " pairs";
        }
    }
}
