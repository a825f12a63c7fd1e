package io.farm.core.tx;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Transactions without backups (f = 0, FaRM's cache mode) on two nodes. */
class CacheModeTransactionsTest {
    @TempDir
    Path dataDir;

    private static byte[] longBytes(long value) {
        return ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(value).array();
    }

    private static long longOf(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder()).getLong();
    }

    @Test
    void commitsWithoutBackupRecordsLocallyAndAcrossNodes() throws Exception {
        try (TxCluster cluster = new TxCluster("cache-mode", 2, 0, 1, dataDir)) {
            long a = cluster.create(0, longBytes(10));
            long b = cluster.create(1, longBytes(20));
            for (int i = 0; i < 50; i++) {
                // Distributed (objects on both nodes), then single-machine (node 1's object from node 1).
                cluster.execute(i % 2, 0, tx -> tx.txRead(a, 8).thenCompose(x -> tx.txRead(b, 8).thenApply(y -> {
                    tx.txWrite(x, longBytes(longOf(x.toByteArray()) - 1));
                    tx.txWrite(y, longBytes(longOf(y.toByteArray()) + 1));
                    return null;
                })));
                cluster.execute(1, 0, tx -> tx.txRead(b, 8).thenApply(y -> {
                    tx.txWrite(y, longBytes(longOf(y.toByteArray()) + 2));
                    return null;
                }));
            }
            assertEquals(10 - 50, longOf(cluster.read(1, a, 8)));
            assertEquals(20 + 50 + 100, longOf(cluster.read(0, b, 8)));
            for (int node = 0; node < 2; node++) {
                TxStats stats = cluster.farm(node).transactions().stats();
                assertEquals(0, stats.sent(TxRecordDescriptor.COMMIT_BACKUP), stats::toString);
                assertEquals(0, stats.aborted(), stats::toString);
            }
            // 25 distributed commits coordinated by each node, 2 primaries each; single-machine commits send none.
            for (int node = 0; node < 2; node++) {
                TxStats stats = cluster.farm(node).transactions().stats();
                assertEquals(50, stats.sent(TxRecordDescriptor.LOCK), stats::toString);
                assertEquals(50, stats.sent(TxRecordDescriptor.COMMIT_PRIMARY), stats::toString);
            }
        }
    }
}
