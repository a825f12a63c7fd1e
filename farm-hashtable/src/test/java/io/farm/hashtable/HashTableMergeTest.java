package io.farm.hashtable;

import io.farm.core.cluster.NodeWorker;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link HashTable#merge}: read-modify-writes run at the shard primary, atomic cluster-wide. */
class HashTableMergeTest {
    private static final int NODES = TableCluster.NODES;
    private static final int WORKERS = TableCluster.WORKERS;
    /** Adds the argument's long to the stored long. */
    private static final int ADD = 7;
    /** Appends the argument to the stored bytes. */
    private static final int APPEND = 8;
    /** Refuses every input. */
    private static final int REFUSE = 9;
    /** Registered on node 0 only. */
    private static final int ON_NODE_0_ONLY = 10;
    /** A guard against a hang; no claim about speed. */
    private static final long HANG_GUARD_SECONDS = 120;

    @RegisterExtension
    static final TableClusterExtension CLUSTER = new TableClusterExtension("hashtable-merge");

    @BeforeAll
    static void start() {
        for (int id = 0; id < NODES; id++) {
            HashTables node = CLUSTER.tables(id);
            node.registerMerge(ADD, (current, argument) -> longBytes(ByteBuffer.wrap(current).getLong()
                + ByteBuffer.wrap(argument).getLong()));
            node.registerMerge(APPEND, (current, argument) -> {
                byte[] appended = Arrays.copyOf(current, current.length + argument.length);
                System.arraycopy(argument, 0, appended, current.length, argument.length);
                return appended;
            });
            node.registerMerge(REFUSE, (current, argument) -> {
                throw new IllegalArgumentException("this merge accepts nothing");
            });
        }
        CLUSTER.tables(0).registerMerge(ON_NODE_0_ONLY, (current, argument) -> argument);
    }

    private static byte[] longBytes(long value) {
        return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void aMergeReplacesAPresentValueWithTheMergedOneInlineAndOutOfLineAndLeavesAnAbsentKeyAbsent() {
        HashTable table = CLUSTER.tables(1).createBlocking("merge-append", HashTableConfig.of(8, 8, 8, 32, 3, 16));
        table.putBlocking(0, bytes("k"), bytes("abc"));
        assertTrue(table.mergeBlocking(1, bytes("k"), APPEND, bytes("de")));
        assertArrayEquals(bytes("abcde"), table.getBlocking(0, bytes("k")));
        // Past the 8 inline bytes: the value moves out of line, and merges keep reading it there.
        assertTrue(table.mergeBlocking(0, bytes("k"), APPEND, bytes("fghij")));
        assertTrue(table.mergeBlocking(0, bytes("k"), APPEND, bytes("klm")));
        for (int node = 0; node < NODES; node++) {
            assertArrayEquals(bytes("abcdefghijklm"), CLUSTER.tables(node).open("merge-append").getBlocking(node % WORKERS,
                bytes("k")));
        }
        assertFalse(table.mergeBlocking(0, bytes("absent"), APPEND, bytes("x")), "a merge of an absent key reports false");
        assertNull(table.getBlocking(0, bytes("absent")), "and does not insert it");
    }

    @Test
    void concurrentMergesFromEveryWorkerOfEveryNodeAreAllApplied() throws Exception {
        String name = "merge-counters";
        CLUSTER.tables(0).createBlocking(name, HashTableConfig.of(8, 8, 8, 8, 3, 16));
        List<byte[]> keys = List.of(bytes("hot"), bytes("warm"), bytes("c3"));
        for (byte[] key : keys) {
            CLUSTER.tables(0).open(name).putBlocking(0, key, longBytes(0));
        }
        int mergesPerStream = 40;
        List<CompletableFuture<Void>> streams = new ArrayList<>();
        for (int node = 0; node < NODES; node++) {
            HashTable table = CLUSTER.tables(node).open(name);
            for (int w = 0; w < WORKERS; w++) {
                streams.add(CLUSTER.node(node).submit(w, worker -> {
                    List<CompletableFuture<Void>> started = new ArrayList<>();
                    for (byte[] key : keys) {
                        started.add(mergeInTurn(worker, table, key, mergesPerStream));
                        started.add(mergeInTurn(worker, table, key, mergesPerStream));
                    }
                    return CompletableFuture.allOf(started.toArray(CompletableFuture[]::new));
                }));
            }
        }
        CompletableFuture.allOf(streams.toArray(CompletableFuture[]::new)).get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
        long expected = (long) NODES * WORKERS * 2 * mergesPerStream;
        for (int node = 0; node < NODES; node++) {
            for (byte[] key : keys) {
                long sum = ByteBuffer.wrap(CLUSTER.tables(node).open(name).getBlocking(node % WORKERS, key)).getLong();
                assertEquals(expected, sum, "every merge of " + new String(key, StandardCharsets.US_ASCII)
                    + " is applied once, read on node " + node);
            }
        }
    }

    /** {@code count} merges adding 1 to {@code key}, each issued once the previous one completed. */
    private static CompletableFuture<Void> mergeInTurn(NodeWorker worker, HashTable table, byte[] key, int count) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        new Object() {
            int issued;

            void next() {
                if (issued++ == count) {
                    done.complete(null);
                    return;
                }
                table.merge(worker, key, ADD, longBytes(1)).whenComplete((merged, failure) -> {
                    if (failure != null) {
                        done.completeExceptionally(failure);
                    } else if (!merged) {
                        done.completeExceptionally(new AssertionError("a merge of a present key reported it absent"));
                    } else {
                        worker.worker().execute(this::next);
                    }
                });
            }
        }.next();
        return done;
    }

    @Test
    void aRefusedMergeFailsWithItsReasonAndChangesNothing() {
        HashTable table = CLUSTER.tables(2).createBlocking("merge-refusals", HashTableConfig.of(8, 8, 8, 12, 3, 16));
        table.putBlocking(0, bytes("k"), bytes("value"));

        RuntimeException refused = assertThrows(RuntimeException.class,
            () -> table.mergeBlocking(0, bytes("k"), REFUSE, bytes("x")));
        assertTrue(refused.getMessage().contains("this merge accepts nothing"), refused.getMessage());

        RuntimeException tooLong = assertThrows(RuntimeException.class,
            () -> table.mergeBlocking(0, bytes("k"), APPEND, bytes("12345678")));
        assertTrue(tooLong.getMessage().contains("returned a value table merge-refusals does not accept")
            && tooLong.getMessage().contains("0..12 bytes"), tooLong.getMessage());

        byte[] key = keyWithPrimaryOtherThan(table, 0);
        table.putBlocking(0, key, bytes("v"));
        RuntimeException unregistered = assertThrows(RuntimeException.class,
            () -> table.mergeBlocking(0, key, ON_NODE_0_ONLY, bytes("x")));
        assertTrue(unregistered.getMessage().contains("no merge is registered under id " + ON_NODE_0_ONLY + " on node "
            + table.shardPrimary(table.home(key).shard())), unregistered.getMessage());

        assertArrayEquals(bytes("value"), table.getBlocking(1, bytes("k")), "refused merges leave the value as it was");
        assertArrayEquals(bytes("v"), table.getBlocking(1, key));
        assertTrue(table.mergeBlocking(1, bytes("k"), APPEND, bytes("!")), "the key still takes merges");
        assertArrayEquals(bytes("value!"), table.getBlocking(0, bytes("k")));
    }

    private static byte[] keyWithPrimaryOtherThan(HashTable table, int node) {
        for (int i = 0; ; i++) {
            byte[] key = bytes("p" + i);
            if (table.shardPrimary(table.home(key).shard()) != node) {
                return key;
            }
        }
    }

    @Test
    void badMergeIdsAndRegistrationsAreRefusedWithWhatIsAccepted() {
        HashTable table = CLUSTER.tables(0).createBlocking("merge-ids", HashTableConfig.of(8, 8, 8, 8, 3, 16));
        for (int id : new int[] {0, -1, 256}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> table.mergeBlocking(0, bytes("k"), id, bytes("x")));
            assertTrue(e.getMessage().contains("merge id " + id + " is not accepted: ids are 1..255"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> CLUSTER.tables(1).registerMerge(id, (c, a) -> c));
        }
        IllegalStateException twice = assertThrows(IllegalStateException.class,
            () -> CLUSTER.tables(1).registerMerge(ADD, (c, a) -> c));
        assertTrue(twice.getMessage().contains("registered under id " + ADD), twice.getMessage());
        assertThrows(IllegalArgumentException.class, () -> table.mergeBlocking(0, bytes("k"), ADD, new byte[9]),
            "an argument is as long as a value at most");
    }

    @Test
    void aMalformedMergeMessageIsRefused() {
        byte[] noId = HashTableMessages.mutation(HashTableMessages.MERGE, 0, bytes("k"), bytes("v"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> HashTableMessages.Mutation.decode(ByteBuffer.wrap(noId)));
        assertTrue(e.getMessage().contains("a MERGE names its merge"), e.getMessage());
        byte[] idOnPut = HashTableMessages.mutation(HashTableMessages.PUT, 3, bytes("k"), bytes("v"));
        assertThrows(IllegalArgumentException.class, () -> HashTableMessages.Mutation.decode(ByteBuffer.wrap(idOnPut)));
        byte[] badOp = HashTableMessages.mutation((byte) 6, 0, bytes("k"), bytes("v"));
        IllegalArgumentException op = assertThrows(IllegalArgumentException.class,
            () -> HashTableMessages.Mutation.decode(ByteBuffer.wrap(badOp)));
        assertTrue(op.getMessage().contains("accepted 1..5"), op.getMessage());
        HashTableMessages.Mutation decoded = HashTableMessages.Mutation.decode(ByteBuffer.wrap(
            HashTableMessages.mutation(HashTableMessages.MERGE, 255, bytes("k"), bytes("v"))));
        assertEquals(255, decoded.mergeId());
    }
}
