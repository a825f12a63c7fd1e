package io.farm.core.rpc;

import io.farm.core.cluster.EmbeddedCluster;
import io.farm.core.cluster.Node;
import io.farm.core.config.ClusterConfig;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** An embedded cluster (local fabric) with an RPC layer attached to every node; two workers per node, 1 MiB regions. */
final class RpcCluster implements AutoCloseable {
    /** One node and its RPC layer. */
    record Member(Node node, Rpc rpc) {
    }

    private final EmbeddedCluster cluster;
    private final List<Member> members;

    private RpcCluster(EmbeddedCluster cluster, List<Member> members) {
        this.cluster = cluster;
        this.members = members;
    }

    /** A cluster of {@code size} nodes, each with RPCs attached. */
    static RpcCluster start(Path dataDir, int size) {
        EmbeddedCluster cluster = EmbeddedCluster.start(config(dataDir, size));
        List<Member> members = new ArrayList<>();
        try {
            for (Node node : cluster.nodes()) {
                members.add(new Member(node, Rpc.attach(node)));
            }
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        return new RpcCluster(cluster, members);
    }

    /** The configuration of the test clusters: local fabric, no backups, 2 workers per node, 1 MiB regions. */
    static ClusterConfig config(Path dataDir, int size) {
        return ClusterConfig.builder()
            .name("memory")
            .memberCount(size)
            .fabric("local")
            .threads(2)
            .regionSize(1 << 20)
            .dataDir(dataDir)
            .build();
    }

    Member member(int id) {
        return members.get(id);
    }

    Node node(int id) {
        return members.get(id).node();
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
}
