package io.farm.hashtable;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A hashtable on a 3-node embedded cluster with 2 backups. */
class HashTableTest {
    @RegisterExtension
    static final TableClusterExtension CLUSTER = new TableClusterExtension("hashtable");

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void putGetUpdateRemoveFromEveryNode() {
        HashTable created = CLUSTER.tables(0).createBlocking("basic", HashTableConfig.of(8, 16, 8, 200, 6, 64));
        for (int node = 0; node < 3; node++) {
            HashTable table = CLUSTER.tables(node).open("basic");
            String key = "key-" + node;
            assertNull(table.getBlocking(0, bytes(key)));
            assertTrue(table.insertBlocking(0, bytes(key), bytes("v" + node)));
            assertFalse(table.insertBlocking(1, bytes(key), bytes("again")));
            for (int reader = 0; reader < 3; reader++) {
                assertArrayEquals(bytes("v" + node), CLUSTER.tables(reader).open("basic").getBlocking(reader % 2, bytes(key)));
            }
            String large = "a value longer than the 8 inline bytes, stored out of line " + node;
            assertTrue(table.updateBlocking(1, bytes(key), bytes(large)));
            assertArrayEquals(bytes(large), CLUSTER.tables((node + 1) % 3).open("basic").getBlocking(0, bytes(key)));
            table.putBlocking(0, bytes(key), bytes("short"));
            assertArrayEquals(bytes("short"), table.getBlocking(1, bytes(key)));
            assertTrue(table.removeBlocking(0, bytes(key)));
            assertFalse(table.removeBlocking(0, bytes(key)));
            assertFalse(table.updateBlocking(0, bytes(key), bytes("x")));
            assertNull(CLUSTER.tables((node + 2) % 3).open("basic").getBlocking(1, bytes(key)));
        }
        assertEquals(6, created.shardCount());
    }

    @Test
    void aTinyTableKeepsEveryKeyThroughChainsAndRemovesCollapseThem() {
        // One shard of two home buckets: almost every key collides into overflow chains.
        HashTable table = CLUSTER.tables(1).createBlocking("tiny", HashTableConfig.of(4, 8, 8, 8, 1, 2));
        Map<String, String> model = new HashMap<>();
        Random random = new Random(7);
        for (int i = 0; i < 60; i++) {
            model.put("k" + i, "v" + i);
            assertTrue(table.insertBlocking(i % 2, bytes("k" + i), bytes("v" + i)));
        }
        for (int step = 0; step < 300; step++) {
            String key = "k" + random.nextInt(80);
            HashTable at = CLUSTER.tables(random.nextInt(3)).open("tiny");
            switch (random.nextInt(3)) {
                case 0 -> {
                    boolean removed = at.removeBlocking(step % 2, bytes(key));
                    assertEquals(model.remove(key) != null, removed, key);
                }
                case 1 -> {
                    String value = "w" + step;
                    at.putBlocking(step % 2, bytes(key), bytes(value));
                    model.put(key, value);
                }
                default -> {
                    byte[] got = at.getBlocking(step % 2, bytes(key));
                    String expected = model.get(key);
                    if (expected == null) {
                        assertNull(got, key);
                    } else {
                        assertArrayEquals(bytes(expected), got, key);
                    }
                }
            }
        }
        for (int i = 0; i < 80; i++) {
            String expected = model.get("k" + i);
            byte[] got = CLUSTER.tables(i % 3).open("tiny").getBlocking(0, bytes("k" + i));
            if (expected == null) {
                assertNull(got);
            } else {
                assertArrayEquals(bytes(expected), got, "k" + i);
            }
        }
        for (String key : List.copyOf(model.keySet())) {
            assertTrue(table.removeBlocking(0, bytes(key)));
        }
        // Every chain collapsed: a lookup of a missing key reads only its two buckets.
        long reads = table.stats().lookupReads();
        long lookups = table.stats().lookups();
        for (int i = 0; i < 20; i++) {
            assertNull(table.getBlocking(0, bytes("k" + i)));
        }
        assertEquals(20, table.stats().lookups() - lookups);
        assertEquals(20, table.stats().lookupReads() - reads);
    }

    @Test
    void badInputIsRefusedWithWhatIsAccepted() {
        HashTable table = CLUSTER.tables(2).createBlocking("limits", HashTableConfig.of(8, 8, 8, 32, 3, 16));
        IllegalArgumentException longKey = assertThrows(IllegalArgumentException.class,
            () -> table.putBlocking(0, bytes("123456789"), bytes("v")));
        assertTrue(longKey.getMessage().contains("1..8 bytes"), longKey.getMessage());
        assertThrows(IllegalArgumentException.class, () -> table.putBlocking(0, new byte[0], bytes("v")));
        assertThrows(IllegalArgumentException.class, () -> table.getBlocking(0, null));
        IllegalArgumentException longValue = assertThrows(IllegalArgumentException.class,
            () -> table.putBlocking(0, bytes("k"), new byte[33]));
        assertTrue(longValue.getMessage().contains("0..32 bytes"), longValue.getMessage());
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> CLUSTER.tables(0).open("nope"));
        assertTrue(missing.getMessage().contains("limits"), missing.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CLUSTER.tables(0).createBlocking("limits",
            HashTableConfig.of(8, 8, 8, 32, 3, 16)));
        IllegalArgumentException tooBig = assertThrows(IllegalArgumentException.class,
            () -> CLUSTER.tables(0).createBlocking("big", HashTableConfig.of(8, 8, 8, 8, 1, 100_000)));
        assertTrue(tooBig.getMessage().contains("more shards"), tooBig.getMessage());
        assertThrows(IllegalArgumentException.class, () -> HashTableConfig.of(7, 8, 8, 8, 1, 10));
        assertNull(table.getBlocking(0, bytes("k")));
    }

    @Test
    void theCensusCountsPairsAndMemoryAndMessageLookupsAgreeWithLockFreeOnes() throws Exception {
        HashTable table = CLUSTER.tables(0).createBlocking("census", HashTableConfig.of(6, 16, 32, 100, 3, 50));
        int pairs = 0;
        long pairBytes = 0;
        for (int i = 0; i < 400; i++) {
            byte[] key = bytes("key-" + i);
            byte[] value = bytes(i % 10 == 0 ? "a value longer than thirty-two bytes, out of line #" + i : "value-" + i);
            table.putBlocking(i % 2, key, value);
            pairs++;
            pairBytes += key.length + value.length;
        }
        TableCensus census = CLUSTER.node(1).submit(0, w -> CLUSTER.tables(1).open("census").census(w)).get();
        assertEquals(pairs, census.pairs());
        assertEquals(pairBytes, census.pairBytes());
        assertEquals(40, census.outOfLineValues());
        assertEquals(3 * 50 * 3, census.bucketSlots());
        assertTrue(census.occupiedBytes() > 0 && census.spaceUtilization() < 1, census::toString);
        HashTable remote = CLUSTER.tables(2).open("census");
        for (int i = 0; i < 400; i += 7) {
            byte[] key = bytes("key-" + i);
            byte[] byMessage = CLUSTER.node(2).submit(1, w -> remote.getByMessage(w, key)).get();
            assertArrayEquals(remote.getBlocking(1, key), byMessage);
        }
        assertNull(CLUSTER.node(2).submit(1, w -> remote.getByMessage(w, bytes("absent"))).get());
    }
}
