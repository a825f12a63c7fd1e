package io.farm.core.alloc;

import io.farm.core.cluster.EmbeddedCluster;
import io.farm.core.cluster.Node;
import io.farm.core.config.ClusterConfig;
import io.farm.core.rpc.Rpc;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.farm.core.testing.Liveness.LIVENESS_SECONDS;

/**
 * An embedded cluster (local fabric) with farm-core's memory management attached to every node:
 * RPCs, the region allocator, the reclamation epochs and the object allocator. Small regions (4 MiB) and two workers
 * per node keep it light.
 */
final class MemoryCluster implements AutoCloseable {
    /** Region size of the test clusters. */
    static final long REGION_SIZE = 4 << 20;

    /** One node and what is attached to it. */
    record Member(Node node, Rpc rpc, RegionAllocator regions, ClusterEpochs epochs, NodeAllocator objects) {
    }

    private final EmbeddedCluster cluster;
    private final List<Member> members;

    private MemoryCluster(EmbeddedCluster cluster, List<Member> members) {
        this.cluster = cluster;
        this.members = members;
    }

    /** A cluster of {@code size} nodes with {@code backups} backups per region, backups answering within {@code backupTimeout}. */
    static MemoryCluster start(Path dataDir, int size, int backups, Duration backupTimeout) {
        EmbeddedCluster cluster = EmbeddedCluster.start(config(dataDir, size, backups, "local"));
        List<Member> members = new ArrayList<>();
        try {
            for (Node node : cluster.nodes()) {
                Rpc rpc = Rpc.attach(node);
                RegionAllocator regions = RegionAllocator.attach(node, rpc, backupTimeout);
                ClusterEpochs epochs = ClusterEpochs.attach(node);
                members.add(new Member(node, rpc, regions, epochs, NodeAllocator.attach(node, rpc, regions, epochs)));
            }
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        return new MemoryCluster(cluster, members);
    }

    /** A cluster of {@code size} nodes with {@code backups} backups per region and the default backup timeout. */
    static MemoryCluster start(Path dataDir, int size, int backups) {
        return start(dataDir, size, backups, RegionAllocator.DEFAULT_BACKUP_TIMEOUT);
    }

    /** The configuration of the test clusters: 2 workers per node, 4 MiB regions. */
    static ClusterConfig config(Path dataDir, int size, int backups, String fabric) {
        return ClusterConfig.builder()
            .name("memory")
            .memberCount(size)
            .backups(backups)
            .fabric(fabric)
            .threads(2)
            .regionSize(REGION_SIZE)
            .dataDir(dataDir)
            .build();
    }

    Member member(int id) {
        return members.get(id);
    }

    Node node(int id) {
        return members.get(id).node();
    }

    List<Member> members() {
        return members;
    }

    ClusterConfig config() {
        return cluster.config();
    }

    /** Failures the workers of every node reported. */
    long workerErrors() {
        long errors = 0;
        for (Member member : members) {
            errors += member.node().workers().errorCount();
        }
        return errors;
    }

    @Override
    public void close() {
        cluster.close();
    }

    /**
     * Keeps worker {@code index} of {@code node} busy inside one task until {@code release} opens:
     * the worker runs nothing else meanwhile (no poller, no message handler). Returns once the
     * task runs, with the task's future, complete once released.
     */
    static CompletableFuture<Void> keepBusy(Node node, int index, CountDownLatch release) throws InterruptedException {
        CountDownLatch running = new CountDownLatch(1);
        CompletableFuture<Void> task = node.submit(index, worker -> {
            running.countDown();
            try {
                if (!release.await(LIVENESS_SECONDS, TimeUnit.SECONDS)) {
                    throw new AssertionError("the test never released the busy worker");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while kept busy", e);
            }
            return CompletableFuture.completedFuture(null);
        });
        if (!running.await(LIVENESS_SECONDS, TimeUnit.SECONDS)) {
            throw new AssertionError("worker " + index + " of node " + node.id() + " did not start the busy task");
        }
        return task;
    }

    /** How long the tests that wait for a timeout give their backups: short, so that the test is quick. */
    static final Duration SHORT_TIMEOUT = Duration.ofMillis(200);
}
