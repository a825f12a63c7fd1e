package io.farm.core.fabric.shm;

import io.farm.core.testing.ParentWatch;

import java.nio.file.Path;

/**
 * A node process that looks at another node from outside: it opens its own shm fabric and
 * prints {@code REACHABLE <true|false>} for the other node, then tries to open the other
 * node's fabric itself and prints {@code OPEN refused: <message>} or {@code OPEN succeeded}.
 *
 * <p>Arguments: cluster directory, own node id, the other node's id.
 */
public final class ReachabilityProbeNode {
    private ReachabilityProbeNode() {
    }

    public static void main(String[] args) {
        ParentWatch.exitWhenParentDies();
        Path clusterDir = Path.of(args[0]);
        int self = Integer.parseInt(args[1]);
        int other = Integer.parseInt(args[2]);
        try (ShmFabric fabric = ShmFabric.open(clusterDir, self)) {
            System.out.println("REACHABLE " + fabric.isReachable(other));
        }
        try (ShmFabric impostor = ShmFabric.open(clusterDir, other)) {
            System.out.println("OPEN succeeded: " + impostor);
        } catch (IllegalStateException e) {
            System.out.println("OPEN refused: " + e.getMessage());
        }
    }
}
