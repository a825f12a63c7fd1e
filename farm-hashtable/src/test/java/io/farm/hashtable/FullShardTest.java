package io.farm.hashtable;

import io.farm.core.Farm;
import io.farm.core.cluster.EmbeddedCluster;
import io.farm.core.config.ClusterConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CompletionException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A node out of memory (farm.node.regions) makes inserts fail naming the full shard, and loses nothing. */
class FullShardTest {
    @TempDir
    Path dataDir;

    @Test
    void anInsertIntoAFullShardFailsNamingTheShardAndHowToSizeTheTableAndLosesNothing() {
        ClusterConfig config = ClusterConfig.builder().name("full").memberCount(1).fabric("local").threads(1)
            .regionSize(4 << 20).nodeRegions(1).dataDir(dataDir).build();
        try (EmbeddedCluster cluster = EmbeddedCluster.start(config)) {
            HashTables tables = HashTables.attach(Farm.attach(cluster.node(0)));
            // One shard of 4 buckets, values out of line: the 2 free blocks of the only region run out.
            HashTable table = tables.createBlocking("small", HashTableConfig.of(4, 8, 8, 20_000, 1, 4));
            byte[] value = new byte[16_000];
            int stored = 0;
            RuntimeException full = null;
            while (full == null && stored < 1_000) {
                byte[] key = ByteBuffer.allocate(8).putLong(stored).array();
                try {
                    table.putBlocking(0, key, value);
                    stored++;
                } catch (RuntimeException e) {
                    full = e;
                }
            }
            assertTrue(full != null && stored > 0, "the node filled up after " + stored + " values");
            String message = messages(full);
            assertTrue(message.contains("shard 0 of table small") && message.contains("is full")
                && message.contains("size the table"), message);
            for (int i = 0; i < stored; i++) {
                assertArrayEquals(value, table.getBlocking(0, ByteBuffer.allocate(8).putLong(i).array()), "key " + i);
            }
            assertThrows(RuntimeException.class, () -> table.putBlocking(0, ByteBuffer.allocate(8).putLong(-1).array(), value));
        }
    }

    private static String messages(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (!(t instanceof CompletionException)) {
                all.append(t).append(" / ");
            }
        }
        return all.toString();
    }
}
