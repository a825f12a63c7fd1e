package io.farm.bench.txn;

import io.farm.core.addr.GlobalAddress;
import io.farm.core.config.ClusterConfig;
import io.farm.core.placement.PlacementRing;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The keys {@link KeyChooser} picks, and the costs it expects of them, against the rules it states. */
class KeyChooserProperties {
    private static final int KEYS_PER_NODE = 16;

    /** A key space of {@code nodes} nodes, each object in a region whose primary is its node. */
    private static KeySpace keySpace(int nodes, PlacementRing placement) {
        long[][] addresses = new long[nodes][KEYS_PER_NODE];
        SplittableRandom random = new SplittableRandom(nodes);
        for (int node = 0; node < nodes; node++) {
            for (int i = 0; i < KEYS_PER_NODE; i++) {
                // A region per object, so that one node's keys have different backups.
                addresses[node][i] = GlobalAddress.of(placement.regionIdWithPrimary(node, random), 64L * (i + 1));
            }
        }
        return new KeySpace(addresses, placement);
    }

    private static PlacementRing placement(int nodes) {
        return ClusterConfig.builder().memberCount(nodes).backups(Math.min(2, nodes - 1)).build().placement();
    }

    @Provide
    Arbitrary<Workload> workloads() {
        return Arbitraries.of(Workload.ALL);
    }

    @Property(tries = 200)
    void keysAreDistinctOnDistinctPrimariesWhereTheNodesAllow(@ForAll @IntRange(min = 2, max = 8) int nodes,
                                                               @ForAll("workloads") Workload workload,
                                                               @ForAll long seed) {
        PlacementRing placement = placement(nodes);
        KeySpace keys = keySpace(nodes, placement);
        KeyChooser chooser = new KeyChooser(keys, workload, 0, new SplittableRandom(seed));
        int r = workload.reads();
        for (int t = 0; t < 20; t++) {
            TxnPlan plan = chooser.next();
            assertEquals(r, plan.addresses().length);
            assertEquals(r, Arrays.stream(plan.keys()).distinct().count(), "distinct keys " + Arrays.toString(plan.keys()));
            Set<Integer> firstPrimaries = new HashSet<>();
            Set<Integer> writtenPrimaries = new HashSet<>();
            Set<Integer> backups = new HashSet<>();
            int remoteReadOnly = 0;
            for (int j = 0; j < r; j++) {
                int primary = placement.primary(GlobalAddress.regionId(plan.addresses()[j]));
                assertEquals(primary, plan.keys()[j] / KEYS_PER_NODE, "a key's node is its object's primary");
                assertEquals(keys.address(primary, (int) (plan.keys()[j] % KEYS_PER_NODE)), plan.addresses()[j]);
                if (j < Math.min(r, nodes)) {
                    firstPrimaries.add(primary);
                }
                if (plan.written()[j]) {
                    writtenPrimaries.add(primary);
                    int[] replicas = placement.replicas(GlobalAddress.regionId(plan.addresses()[j])).toArray();
                    for (int k = 1; k < replicas.length; k++) {
                        backups.add(replicas[k]);
                    }
                } else if (primary != 0) {
                    remoteReadOnly++;
                }
            }
            assertEquals(Math.min(r, nodes), firstPrimaries.size(), "the first min(r, N) keys have distinct primaries");
            assertEquals(workload.writes(), plan.writes());
            assertEquals(writtenPrimaries.size(), plan.writtenPrimaries());
            assertEquals(backups.size(), plan.backupNodes());
            assertEquals(remoteReadOnly, plan.remoteReadOnly());
            assertEquals(workload.writes() == 0 && r == 1 ? 0 : remoteReadOnly, plan.validationReads());
            if (workload.bank()) {
                assertTrue(plan.amount() >= 1 && plan.amount() <= KeyChooser.MAX_TRANSFER, plan.toString());
                assertEquals(2, writtenPrimaries.size(), "two accounts on two primaries");
            } else {
                assertEquals(0, plan.amount());
            }
        }
    }

    @Property(tries = 10)
    void theKeyBeyondTheNodeCountGoesToAUniformNodeAndTheWritesToUniformPositions(@ForAll long seed) {
        KeyChooser chooser = new KeyChooser(keySpace(3, placement(3)), Workload.O_4_2, 0, new SplittableRandom(seed));
        int[] fourthKeyNode = new int[3];
        int[] writtenPosition = new int[4];
        int transactions = 3000;
        for (int t = 0; t < transactions; t++) {
            TxnPlan plan = chooser.next();
            fourthKeyNode[(int) (plan.keys()[3] / KEYS_PER_NODE)]++;
            for (int j = 0; j < 4; j++) {
                writtenPosition[j] += plan.written()[j] ? 1 : 0;
            }
        }
        // Each node about 1000 times (sd 26), each position written about 1500 times (sd 27): 6 sd of slack.
        for (int count : fourthKeyNode) {
            assertTrue(count > 845 && count < 1155, Arrays.toString(fourthKeyNode));
        }
        for (int count : writtenPosition) {
            assertTrue(count > 1335 && count < 1665, Arrays.toString(writtenPosition));
        }
    }
}
