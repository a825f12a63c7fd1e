package io.farm.hashtable;

import io.farm.core.cluster.NodeWorker;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Flat combining (FaRM NSDI'14 §3.6) of a hot key: every node of a 3-node cluster (2 backups)
 * runs several streams of puts of one key at once, on one worker or on both.
 */
class HashTableFlatCombiningTest {
    private static final int NODES = TableCluster.NODES;
    private static final int WORKERS = TableCluster.WORKERS;
    private static final int STREAMS_PER_WORKER = 4;
    private static final int PUTS_PER_STREAM = 25;
    /** A guard against a hang; no claim about speed. */
    private static final long HANG_GUARD_SECONDS = 120;

    @RegisterExtension
    static final TableClusterExtension CLUSTER = new TableClusterExtension("hashtable-combining");

    /** Put {@code seq} of stream {@code stream}: 8 bytes, inline. */
    private static byte[] value(int stream, int seq) {
        return ByteBuffer.allocate(8).putInt(stream).putInt(seq).array();
    }

    /**
     * One stream of puts of the hot key on its worker: each put issued once the previous one
     * completed, so the stream's last put is linearized after its others.
     */
    private static final class Stream {
        private final NodeWorker worker;
        private final HashTable table;
        private final byte[] key;
        private final int id;
        private final AtomicInteger completedPuts;
        private final CompletableFuture<Void> done = new CompletableFuture<>();
        private int seq;

        Stream(NodeWorker worker, HashTable table, byte[] key, int id, AtomicInteger completedPuts) {
            this.worker = worker;
            this.table = table;
            this.key = key;
            this.id = id;
            this.completedPuts = completedPuts;
        }

        CompletableFuture<Void> start() {
            next();
            return done;
        }

        private void next() {
            if (seq == PUTS_PER_STREAM) {
                done.complete(null);
                return;
            }
            table.put(worker, key, value(id, seq++)).whenComplete((ignored, failure) -> {
                if (failure != null) {
                    done.completeExceptionally(failure);
                    return;
                }
                completedPuts.incrementAndGet();
                worker.worker().execute(this::next);
            });
        }
    }

    @Test
    void concurrentPutsOfAHotKeyFromEveryNodeAreCombinedAndTheLastPutOfAStreamWins(TestReporter reporter)
        throws Exception {
        putHotKey("hot-worker-0", 1, reporter);
    }

    @Test
    void concurrentPutsOfAHotKeyFromEveryWorkerOfEveryNodeAllComplete(TestReporter reporter) throws Exception {
        putHotKey("hot-every-worker", WORKERS, reporter);
    }

    /**
     * Runs {@value #STREAMS_PER_WORKER} streams of puts of one key on workers 0 .. {@code workers - 1}
     * of every node, into a new table named {@code name}; checks every put completed, the final value
     * is the last put of a stream on every node, and the primary (only) combined puts.
     */
    private static void putHotKey(String name, int workers, TestReporter reporter) throws Exception {
        HashTableConfig config = HashTableConfig.of(8, 8, 8, 8, 3, 16);
        CLUSTER.tables(0).createBlocking(name, config);
        byte[] key = "hot".getBytes(StandardCharsets.US_ASCII);
        HashTable created = CLUSTER.tables(0).open(name);
        int primary = created.shardPrimary(created.home(key).shard());
        long[] combinedBefore = new long[NODES];
        for (int node = 0; node < NODES; node++) {
            combinedBefore[node] = CLUSTER.tables(node).combinedMutations();
        }

        AtomicInteger completedPuts = new AtomicInteger();
        List<CompletableFuture<Void>> streams = new ArrayList<>();
        for (int node = 0; node < NODES; node++) {
            HashTable table = CLUSTER.tables(node).open(name);
            for (int w = 0; w < workers; w++) {
                int firstStream = (node * workers + w) * STREAMS_PER_WORKER;
                // All streams of a worker start in one task: on the primary, the first put's
                // transaction is still committing (its backups have not answered) when the
                // others reach the worker's combiner, so they wait and are combined.
                streams.add(CLUSTER.node(node).submit(w, worker -> {
                    List<CompletableFuture<Void>> started = new ArrayList<>();
                    for (int s = 0; s < STREAMS_PER_WORKER; s++) {
                        started.add(new Stream(worker, table, key, firstStream + s, completedPuts).start());
                    }
                    return CompletableFuture.allOf(started.toArray(CompletableFuture[]::new));
                }));
            }
        }
        CompletableFuture.allOf(streams.toArray(CompletableFuture[]::new)).get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);

        int streamCount = NODES * workers * STREAMS_PER_WORKER;
        assertEquals(streamCount * PUTS_PER_STREAM, completedPuts.get(), "every put's stage completed");
        byte[] finalValue = null;
        for (int node = 0; node < NODES; node++) {
            byte[] read = CLUSTER.tables(node).open(name).getBlocking(node % WORKERS, key);
            assertEquals(8, read.length);
            ByteBuffer decoded = ByteBuffer.wrap(read);
            int stream = decoded.getInt();
            int seq = decoded.getInt();
            assertTrue(stream >= 0 && stream < streamCount && seq == PUTS_PER_STREAM - 1,
                "the final value is the last put of a stream, not put " + seq + " of stream " + stream);
            if (finalValue == null) {
                finalValue = read;
            } else {
                assertEquals(ByteBuffer.wrap(finalValue), ByteBuffer.wrap(read), "every node reads the same final value");
            }
        }

        long combined = CLUSTER.tables(primary).combinedMutations() - combinedBefore[primary];
        reporter.publishEntry("combinedMutations", combined + " of " + completedPuts.get() + " puts on primary node " + primary);
        assertTrue(combined >= (long) workers * (STREAMS_PER_WORKER - 1),
            "the primary's own streams combine at least " + workers * (STREAMS_PER_WORKER - 1) + " puts: " + combined);
        for (int node = 0; node < NODES; node++) {
            if (node != primary) {
                assertEquals(combinedBefore[node], CLUSTER.tables(node).combinedMutations(), "only the primary combines");
            }
        }
    }
}
