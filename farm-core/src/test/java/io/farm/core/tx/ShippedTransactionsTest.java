package io.farm.core.tx;

import io.farm.core.Farm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A transaction shipped with msgSend to the primary of its objects commits there as a
 * single-machine transaction (FaRM NSDI'14 §3.4): local locking and validation, only the
 * COMMIT-BACKUP records leave the machine.
 */
class ShippedTransactionsTest {
    private static final int MOVE = 7;

    @TempDir
    static Path dataDir;

    private static TxCluster cluster;

    @BeforeAll
    static void start() {
        cluster = new TxCluster("shipped", 3, 2, 2, dataDir);
        for (Farm farm : cluster.farms()) {
            // Message: the address of a second account on the same primary, and an amount.
            farm.shipping().msgRegisterHandler(MOVE, (worker, sender, address, message, offset, length) -> {
                long other = message.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
                long amount = message.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + 8);
                return farm.transactions().execute(worker, tx -> tx.txRead(address, 8).thenCompose(a ->
                    tx.txRead(other, 8).thenApply(b -> {
                        tx.txWrite(a, longBytes(longOf(a.toByteArray()) - amount));
                        tx.txWrite(b, longBytes(longOf(b.toByteArray()) + amount));
                        return longBytes(longOf(a.toByteArray()));
                    })));
            });
        }
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    private static byte[] longBytes(long value) {
        return ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(value).array();
    }

    private static long longOf(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder()).getLong();
    }

    @Test
    void aTransactionShippedToItsObjectsPrimaryCommitsThereWithOnlyCommitBackupRecords() throws Exception {
        long a = cluster.create(2, longBytes(1000));
        long b = cluster.execute(2, 0, tx -> tx.txAlloc(8, a).thenApply(buffer -> {
            tx.txWrite(buffer, longBytes(0));
            return buffer.address();
        }));
        assertEquals(2, cluster.farm(0).transactions().primaryOf(b), "allocated near a, on a's primary");
        TxStats primary = cluster.farm(2).transactions().stats();
        long locks = primary.sent(TxRecordDescriptor.LOCK);
        long commitPrimaries = primary.sent(TxRecordDescriptor.COMMIT_PRIMARY);
        long commitBackups = primary.sent(TxRecordDescriptor.COMMIT_BACKUP);
        long committed = primary.committed();
        ByteBuffer message = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder()).putLong(b).putLong(10);
        int sends = 20;
        for (int i = 0; i < sends; i++) {
            byte[] answer = cluster.on(i % 2, i % 2, w -> cluster.farm(w.node().id()).shipping()
                .msgSend(w, a, MOVE, message.array()));
            assertEquals(1000 - 10L * (i + 1), longOf(answer));
        }
        assertEquals(committed + sends, primary.committed());
        assertEquals(locks, primary.sent(TxRecordDescriptor.LOCK));
        assertEquals(commitPrimaries, primary.sent(TxRecordDescriptor.COMMIT_PRIMARY));
        assertEquals(commitBackups + 2L * sends, primary.sent(TxRecordDescriptor.COMMIT_BACKUP));
        assertEquals(1000 - 10L * sends, longOf(cluster.read(0, a, 8)));
        assertEquals(10L * sends, longOf(cluster.read(1, b, 8)));
    }
}
