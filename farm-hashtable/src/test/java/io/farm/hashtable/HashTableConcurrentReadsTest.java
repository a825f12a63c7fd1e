package io.farm.hashtable;

import io.farm.core.cluster.NodeWorker;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Queue;
import java.util.function.Function;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lock-free gets racing shipped mutations on a tiny table of a 3-node cluster (2 backups): every
 * value read is whole (never torn) and never older than a put that completed before the get
 * started (linearizability), across inline and out-of-line values, overflow chains and removes.
 */
class HashTableConcurrentReadsTest {
    /** 12 keys in 1 shard of 2 home buckets of 2 slots (H = 4): at least 2 of the 8 stable keys live in chains. */
    private static final HashTableConfig TINY = HashTableConfig.of(4, 8, 16, 48, 1, 2);
    private static final int KEYS = 12;
    /** Keys 0 .. 7 are only put; keys 8 .. 11 are put and removed in turn. */
    private static final int STABLE_KEYS = 8;
    /** Operations of the writer: 30 per key. */
    private static final int WRITES = 360;
    private static final int MIN_READS_PER_READER = 400;
    /** A guard against a hang; no claim about speed. */
    private static final long HANG_GUARD_SECONDS = 120;

    @RegisterExtension
    static final TableClusterExtension CLUSTER = new TableClusterExtension("hashtable-reads");

    private static byte[] key(int k) {
        return ("key-" + k).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Self-checking values of {@code lengths} lengths, 8 .. 7 + lengths bytes: a value's first 8
     * bytes hold its counter, and its length and every further byte follow from the counter and
     * the key, so a value mixed from two puts, or another key's, is detected.
     */
    record Values(int lengths) {
        /** Values of 8 .. 16 bytes, all inline in {@link #TINY}. */
        static final Values INLINE = new Values(9);
        /** Values of 8 .. 48 bytes, inline up to 16 in {@link #TINY}, out of line beyond. */
        static final Values INLINE_AND_OUT_OF_LINE = new Values(41);

        /** The value of {@code key} numbered {@code counter}. */
        byte[] value(int key, long counter) {
            byte[] value = new byte[8 + (int) Math.floorMod(counter * 7 + key, (long) lengths)];
            ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN).putLong(counter);
            for (int i = 8; i < value.length; i++) {
                value[i] = (byte) (counter * 31 + key * 17 + i);
            }
            return value;
        }

        /** The counter of a value read, or -1 if it is not exactly a value {@link #value} makes for {@code key}. */
        long counterOf(int key, byte[] read) {
            if (read.length < 8) {
                return -1;
            }
            long counter = ByteBuffer.wrap(read).order(ByteOrder.LITTLE_ENDIAN).getLong();
            return counter >= 0 && Arrays.equals(value(key, counter), read) ? counter : -1;
        }
    }

    /**
     * What each key's writer completed last, as seen by readers: 2c once put c completed, 2c + 1
     * once the remove that followed put c completed, -1 before any. Only its writer sets a key's
     * entry (after the stage completed; volatile), and entries only grow.
     */
    private static final class Completed {
        private final AtomicLongArray last = new AtomicLongArray(KEYS);

        Completed() {
            for (int k = 0; k < KEYS; k++) {
                last.set(k, -1);
            }
        }

        void put(int key, long counter) {
            last.set(key, 2 * counter);
        }

        void removed(int key, long counter) {
            last.set(key, 2 * counter + 1);
        }

        long last(int key) {
            return last.get(key);
        }
    }

    /**
     * The one writer: puts every key in turn (and, for keys 8 .. 11, removes it every other
     * turn), counters increasing per key, one operation at a time, each from the next of its
     * worker slots (node, worker) so that mutations come from several nodes and workers. Each
     * step is posted to the next slot's worker once the previous stage completed there; the
     * worker queues' hand-off orders the writer's state between them. (Mutations do not overlap:
     * concurrent mutations of one chain fail, {@link ConcurrentChainMutationsTest}.)
     */
    private static final class Writer {
        private final HashTable[] views;
        private final int[][] slots;
        private final Values values;
        private final Completed completed;
        private final long[] counters = new long[KEYS];
        private final boolean[] present = new boolean[KEYS];
        private final CompletableFuture<Void> done = new CompletableFuture<>();
        private int operations;

        Writer(HashTable[] views, int[][] slots, Values values, Completed completed) {
            this.views = views;
            this.slots = slots;
            this.values = values;
            this.completed = completed;
        }

        CompletableFuture<Void> start() {
            next();
            return done;
        }

        private void next() {
            if (operations == WRITES) {
                done.complete(null);
                return;
            }
            int[] slot = slots[operations % slots.length];
            CLUSTER.node(slot[0]).submit(slot[1], worker -> {
                step(worker, views[slot[0]]);
                return CompletableFuture.<Void>completedFuture(null);
            }).whenComplete((ignored, failure) -> {
                if (failure != null) {
                    done.completeExceptionally(failure);
                }
            });
        }

        private void step(NodeWorker worker, HashTable table) {
            int key = operations++ % KEYS;
            if (key >= STABLE_KEYS && present[key]) {
                long counter = counters[key];
                table.remove(worker, key(key)).whenComplete((removed, failure) -> {
                    if (failure != null || !removed) {
                        done.completeExceptionally(failure != null ? failure
                            : new AssertionError("remove of present key " + key + " found nothing"));
                        return;
                    }
                    present[key] = false;
                    completed.removed(key, counter);
                    next();
                });
            } else {
                long counter = ++counters[key];
                table.put(worker, key(key), values.value(key, counter)).whenComplete((ignored, failure) -> {
                    if (failure != null) {
                        done.completeExceptionally(failure);
                        return;
                    }
                    present[key] = true;
                    completed.put(key, counter);
                    next();
                });
            }
        }
    }

    /** Gets keys in turn until the writer is done and it made its reads; records every violation. */
    private static final class Reader {
        private final NodeWorker worker;
        private final HashTable table;
        private final Values values;
        private final Completed completed;
        private final CompletableFuture<Void> writerDone;
        private final Queue<String> violations;
        private final AtomicLong valuesRead;
        private final CompletableFuture<Void> done = new CompletableFuture<>();
        private int reads;
        private volatile int pendingKey = -1;

        Reader(NodeWorker worker, HashTable table, Values values, Completed completed,
               CompletableFuture<Void> writerDone, Queue<String> violations, AtomicLong valuesRead) {
            this.worker = worker;
            this.table = table;
            this.values = values;
            this.completed = completed;
            this.writerDone = writerDone;
            this.violations = violations;
            this.valuesRead = valuesRead;
        }

        CompletableFuture<Void> start() {
            step();
            return done;
        }

        private void step() {
            if (reads >= MIN_READS_PER_READER && writerDone.isDone()) {
                done.complete(null);
                return;
            }
            int key = (reads++ * 5 + worker.node().id()) % KEYS;
            long floor = completed.last(key);
            pendingKey = key;
            table.get(worker, key(key)).whenComplete((read, failure) -> {
                pendingKey = -1;
                if (failure != null) {
                    done.completeExceptionally(failure);
                    return;
                }
                try {
                    check(key, floor, read);
                    worker.worker().execute(this::step);
                } catch (RuntimeException | Error e) {
                    done.completeExceptionally(e);
                }
            });
        }

        @Override
        public String toString() {
            int key = pendingKey;
            return "reader on node " + worker.node().id() + " worker " + worker.index() + " after " + reads + " gets"
                + (key >= 0 ? ", waiting for its get of key " + key : "");
        }

        private void check(int key, long floor, byte[] read) {
            String where = "node " + worker.node().id() + " worker " + worker.index() + " key " + key + ": ";
            if (read == null) {
                if (key < STABLE_KEYS && floor >= 0) {
                    violations.add(where + "absent after put " + floor / 2 + " completed");
                }
                return;
            }
            valuesRead.incrementAndGet();
            long counter = values.counterOf(key, read);
            if (counter < 0) {
                violations.add(where + "torn or foreign value [" + HexFormat.of().formatHex(read) + "]");
            } else if (2 * counter < floor) {
                violations.add(where + "stale value " + counter + " read after " + (floor % 2 == 0 ? "put " + floor / 2
                    : "the remove of " + floor / 2) + " completed");
            }
        }
    }

    @Test
    void readersNeverSeeATornOrStaleInlineValueWhileAWriterPutsAndRemoves() throws Exception {
        race("racing-inline", Values.INLINE);
    }

    @Test
    void readersNeverSeeATornOrStaleOutOfLineValueWhileAWriterPutsAndRemoves() throws Exception {
        race("racing-out-of-line", Values.INLINE_AND_OUT_OF_LINE);
    }

    /**
     * The smallest reproducer of the out-of-line failure: the test thread puts and removes from
     * every node one call at a time, while one thread gets keys one call at a time and checks each
     * value read belongs to its key. (It also hung once in a blocking call, hence the guards.)
     */
    @Test
    void aReaderThreadRacingBlockingMutationsReadsOnlyValuesOfTheKeyItLooksUp() throws Exception {
        String name = "blocking-out-of-line";
        CLUSTER.tables(0).createBlocking(name, TINY);
        HashTable[] views = new HashTable[3];
        for (int node = 0; node < 3; node++) {
            views[node] = CLUSTER.tables(node).open(name);
        }
        Values values = Values.INLINE_AND_OUT_OF_LINE;
        AtomicBoolean writing = new AtomicBoolean(true);
        Queue<String> violations = new ConcurrentLinkedQueue<>();
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
            for (int reads = 0; writing.get(); reads++) {
                int k = reads % KEYS;
                byte[] read = await(2, 1, worker -> views[2].get(worker, key(k)));
                if (read != null && values.counterOf(k, read) < 0) {
                    violations.add("key " + k + ": foreign value [" + HexFormat.of().formatHex(read) + "]");
                }
            }
        });
        long[] counters = new long[KEYS];
        boolean[] present = new boolean[KEYS];
        try {
            for (int op = 0; op < WRITES; op++) {
                int k = op % KEYS;
                HashTable table = views[op % 3];
                if (k >= STABLE_KEYS && present[k]) {
                    boolean removed = await(op % 3, op % 2, worker -> table.remove(worker, key(k)));
                    assertTrue(removed, "remove of present key " + k);
                } else {
                    byte[] value = values.value(k, ++counters[k]);
                    await(op % 3, op % 2, worker -> table.put(worker, key(k), value));
                }
                present[k] = !present[k] || k < STABLE_KEYS;
            }
        } finally {
            writing.set(false);
        }
        reader.get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
        assertTrue(violations.isEmpty(), () -> violations.size() + " violations, first: "
            + violations.stream().limit(10).toList());
    }

    /**
     * Races the writer and three readers on a new table named {@code name}, then checks the
     * readers' findings, the quiet table from every node, and that removing every key collapses
     * the chains (census: no pairs, no overflow blocks; a lookup: one fabric read).
     */
    private static void race(String name, Values values) throws Exception {
        CLUSTER.tables(0).createBlocking(name, TINY);
        HashTable[] views = new HashTable[3];
        for (int node = 0; node < 3; node++) {
            views[node] = CLUSTER.tables(node).open(name);
        }
        Completed completed = new Completed();
        Queue<String> violations = new ConcurrentLinkedQueue<>();
        AtomicLong valuesRead = new AtomicLong();
        int[][] writerSlots = {{0, 0}, {1, 1}, {2, 0}};
        int[][] readerSlots = {{2, 1}, {0, 1}, {1, 0}};

        CompletableFuture<Void> writerDone = new Writer(views, writerSlots, values, completed).start();
        List<CompletableFuture<Void>> readers = new ArrayList<>();
        Queue<Reader> started = new ConcurrentLinkedQueue<>();
        for (int[] slot : readerSlots) {
            int node = slot[0];
            readers.add(CLUSTER.node(node).submit(slot[1], worker -> {
                Reader reader = new Reader(worker, views[node], values, completed, writerDone, violations, valuesRead);
                started.add(reader);
                return reader.start();
            }));
        }
        writerDone.get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
        try {
            CompletableFuture.allOf(readers.toArray(CompletableFuture[]::new)).get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("readers hang: " + started + "; violations so far: "
                + violations.stream().limit(10).toList(), e);
        }

        assertTrue(violations.isEmpty(), () -> violations.size() + " violations, first: "
            + violations.stream().limit(10).toList());
        assertTrue(valuesRead.get() > 0, "the readers read values");

        // Quiet now: every node sees each key's last completed operation.
        for (int node = 0; node < 3; node++) {
            for (int k = 0; k < KEYS; k++) {
                long last = completed.last(k);
                byte[] read = views[node].getBlocking(k % 2, key(k));
                if (last % 2 == 0) {
                    assertArrayEquals(values.value(k, last / 2), read, "key " + k + " on node " + node);
                } else {
                    assertNull(read, "key " + k + " on node " + node);
                }
            }
        }
        HashTable table = views[1];
        TableCensus full = census(1, table);
        assertTrue(full.overflowBlocks() > 0, () -> "8 stable keys overflow 6 bucket slots: " + full);

        for (int k = 0; k < KEYS; k++) {
            assertEquals(completed.last(k) % 2 == 0, table.removeBlocking(k % 2, key(k)), "remove of key " + k);
        }
        TableCensus empty = census(2, views[2]);
        assertEquals(0, empty.pairs(), empty::toString);
        assertEquals(0, empty.overflowBlocks(), () -> "the chains collapsed: " + empty);

        HashTableStats stats = views[2].stats();
        long lookups = stats.lookups();
        long reads = stats.lookupReads();
        for (int k = 0; k < KEYS; k++) {
            assertNull(views[2].getBlocking(k % 2, key(k)));
        }
        assertEquals(KEYS, stats.lookups() - lookups);
        assertEquals(KEYS, stats.lookupReads() - reads, "a lookup in a collapsed table reads only its two buckets, at once");
    }

    /** Runs {@code operation} on worker {@code worker} of node {@code node} and waits for it, within the hang guard. */
    private static <T> T await(int node, int worker, Function<NodeWorker, CompletionStage<T>> operation) {
        try {
            return CLUSTER.node(node).submit(worker, operation).get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("operation on node " + node + " worker " + worker + " failed or hung", e);
        }
    }

    private static TableCensus census(int node, HashTable view) throws Exception {
        return CLUSTER.node(node).submit(0, view::census).get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
    }
}
