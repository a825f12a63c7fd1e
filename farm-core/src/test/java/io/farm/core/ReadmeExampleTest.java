package io.farm.core;

import io.farm.core.cluster.EmbeddedCluster;
import io.farm.core.config.ClusterConfig;
import io.farm.core.object.ObjectBuffer;
import io.farm.core.tx.Transactions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The README's example of the application API, compiled and run as written there. */
class ReadmeExampleTest {
    @TempDir
    Path dataDir;

    @Test
    void theReadmeExampleTransfersBetweenAccountsOnTwoNodes() {
        ClusterConfig config = ClusterConfig.builder().memberCount(3).fabric("local")
            .regionSize(64 << 20).dataDir(dataDir).build();
        // README example: start
        try (EmbeddedCluster cluster = EmbeddedCluster.start(config)) {
            List<Farm> farms = Farm.attachAll(cluster.nodes());
            Transactions onNode0 = farms.get(0).transactions();
            Transactions onNode1 = farms.get(1).transactions();
            // Two accounts, allocated by transactions on nodes 0 and 1 (each node is its account's primary).
            long alice = onNode0.executeBlocking(0, tx -> tx.txAlloc(8, 0).thenApply(account -> {
                tx.txWrite(account, balance(100));
                return account.address();
            }));
            long bob = onNode1.executeBlocking(0, tx -> tx.txAlloc(8, 0).thenApply(account -> {
                tx.txWrite(account, balance(0));
                return account.address();
            }));
            // A transfer: read both, write both, commit (retried on conflicts); continuations run on worker 1 of node 0.
            onNode0.executeBlocking(1, tx -> tx.txRead(alice, 8).thenCompose(a -> tx.txRead(bob, 8).thenApply(b -> {
                tx.txWrite(a, balance(balanceOf(a) - 30));
                tx.txWrite(b, balance(balanceOf(b) + 30));
                return null;
            })));
            long bobs = onNode1.executeBlocking(0, tx -> tx.txRead(bob, 8).thenApply(ReadmeExampleTest::balanceOf));
            // README example: end
            assertEquals(30, bobs);
            assertEquals(70L, (long) onNode1.executeBlocking(1, tx -> tx.txRead(alice, 8).thenApply(ReadmeExampleTest::balanceOf)));
        }
    }

    static byte[] balance(long value) {
        return ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(value).array();
    }

    static long balanceOf(ObjectBuffer account) {
        return ByteBuffer.wrap(account.toByteArray()).order(ByteOrder.nativeOrder()).getLong();
    }
}
