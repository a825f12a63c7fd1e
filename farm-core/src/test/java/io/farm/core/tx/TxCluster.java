package io.farm.core.tx;

import io.farm.core.Farm;
import io.farm.core.addr.GlobalAddress;
import io.farm.core.cluster.EmbeddedCluster;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.config.ClusterConfig;
import io.farm.core.object.ObjectBuffer;
import io.farm.core.object.ObjectLayout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/** An embedded cluster (local fabric) with every service attached, for transaction tests. */
final class TxCluster implements AutoCloseable {
    static final long LIVENESS_SECONDS = 30;

    private final EmbeddedCluster cluster;
    private final List<Farm> farms;

    TxCluster(String name, int nodes, int backups, int threads, Path dataDir) {
        this.cluster = EmbeddedCluster.start(ClusterConfig.builder()
            .name(name)
            .memberCount(nodes)
            .backups(backups)
            .fabric("local")
            .threads(threads)
            .regionSize(4 << 20)
            .dataDir(dataDir)
            .build());
        this.farms = Farm.attachAll(cluster.nodes());
    }

    Farm farm(int node) {
        return farms.get(node);
    }

    List<Farm> farms() {
        return farms;
    }

    EmbeddedCluster cluster() {
        return cluster;
    }

    /** Runs {@code operation} on worker {@code worker} of {@code node} and waits for its result. */
    <T> T on(int node, int worker, Function<NodeWorker, CompletionStage<T>> operation)
        throws ExecutionException, InterruptedException, TimeoutException {
        return cluster.node(node).submit(worker, operation).get(LIVENESS_SECONDS, TimeUnit.SECONDS);
    }

    /** Runs {@code body} with {@code Transactions.execute} on worker {@code worker} of {@code node}. */
    <T> T execute(int node, int worker, Function<Transaction, CompletionStage<T>> body) throws Exception {
        return on(node, worker, w -> farm(node).transactions().execute(w, body));
    }

    /** Allocates and commits an object of {@code size} bytes holding {@code value}, primary {@code node}; returns its address. */
    long create(int node, byte[] value) throws Exception {
        return execute(node, 0, tx -> tx.txAlloc(value.length, 0).thenApply(buffer -> {
            tx.txWrite(buffer, value);
            return buffer.address();
        }));
    }

    /** The application bytes of {@code address}, read in a transaction from {@code node}. */
    byte[] read(int node, long address, int size) throws Exception {
        return execute(node, 0, tx -> tx.txRead(address, size).thenApply(ObjectBuffer::toByteArray));
    }

    /** The version word of {@code address} in {@code node}'s copy of its region. */
    long versionWord(int node, long address) {
        MemorySegment region = cluster.node(node).region(GlobalAddress.regionId(address)).memory();
        return region.get(ValueLayout.JAVA_LONG, GlobalAddress.offset(address) + ObjectLayout.VERSION_OFFSET);
    }

    /** The application bytes of {@code address} in {@code node}'s copy of its region (a backup's, say). */
    byte[] copyAt(int node, long address, int size) {
        MemorySegment region = cluster.node(node).region(GlobalAddress.regionId(address)).memory();
        byte[] bytes = new byte[size];
        ObjectLayout.toApplication(region, GlobalAddress.offset(address), MemorySegment.ofArray(bytes), 0, size);
        return bytes;
    }

    static <T> CompletionStage<T> completed(T value) {
        return CompletableFuture.completedFuture(value);
    }

    @Override
    public void close() {
        cluster.close();
    }
}
