package io.farm.core.tx.history;

import io.farm.core.addr.GlobalAddress;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The checker's linear-size graph (rings of overwriters, chained real-time points) against the
 * definition applied to every pair of transactions, on small random (mostly wrong) histories.
 */
class DependencyGraphProperties {
    @Property(tries = 500)
    void cyclicComponentsAndWitnessEdgesMatchThePairwiseDefinition(
        @ForAll long seed, @ForAll @IntRange(min = 1, max = 10) int count, @ForAll boolean realTime) {
        List<CommittedTransaction> transactions = randomHistory(new Random(seed), count);
        SerializabilityChecker checker = realTime
            ? SerializabilityChecker.strict(new InitialVersions())
            : SerializabilityChecker.serializable(new InitialVersions());

        CheckReport report = checker.check(History.of(transactions));

        boolean[][] reach = pairwiseReachability(transactions, realTime);
        List<Set<Long>> components = cyclicComponents(transactions, reach);
        assertEquals(components.size(), report.cycleCount(), report::toString);
        Set<Set<Long>> witnessed = new HashSet<>();
        for (Cycle cycle : report.cycles()) {
            for (Dependency dependency : cycle.dependencies()) {
                assertTrue(holds(dependency, realTime), () -> "not an edge by definition: " + dependency);
            }
            Set<Long> component = components.stream()
                .filter(c -> c.containsAll(cycle.transactionIds())).findFirst().orElseThrow();
            assertTrue(witnessed.add(component), () -> "two witnesses for one component: " + report);
        }
    }

    private static List<CommittedTransaction> randomHistory(Random random, int count) {
        List<CommittedTransaction> transactions = new ArrayList<>();
        for (int t = 0; t < count; t++) {
            long start = random.nextInt(50);
            CommittedTransaction.Builder builder = CommittedTransaction.builder(t, start);
            int reads = random.nextInt(3);
            for (int r = 0; r < reads; r++) {
                builder.read(object(random.nextInt(3)), random.nextInt(4));
            }
            boolean[] written = new boolean[3];
            int writes = random.nextInt(3);
            for (int w = 0; w < writes; w++) {
                int object = random.nextInt(3);
                long overwritten = random.nextInt(4);
                long version = random.nextInt(4);
                if (!written[object] && version != overwritten) {
                    written[object] = true;
                    builder.write(object(object), overwritten, version);
                }
            }
            transactions.add(builder.commit(start + random.nextInt(20)));
        }
        return transactions;
    }

    private static long object(int i) {
        return GlobalAddress.of(1, 64L * i);
    }

    private static boolean holds(Dependency d, boolean realTime) {
        CommittedTransaction from = d.from();
        CommittedTransaction to = d.to();
        return from != to && switch (d.kind()) {
            case WRITE_READ -> wrote(from, d.address(), d.version()) && read(to, d.address(), d.version());
            case WRITE_WRITE -> wrote(from, d.address(), d.version()) && overwrote(to, d.address(), d.version());
            case READ_WRITE -> (read(from, d.address(), d.version()) || overwrote(from, d.address(), d.version()))
                && overwrote(to, d.address(), d.version());
            case REAL_TIME -> realTime && from.commitNanos() < to.startNanos();
        };
    }

    private static boolean edge(CommittedTransaction from, CommittedTransaction to, boolean realTime) {
        if (from == to) {
            return false;
        }
        if (realTime && from.commitNanos() < to.startNanos()) {
            return true;
        }
        for (int i = 0; i < to.readCount(); i++) {
            if (wrote(from, to.readAddress(i), to.readVersion(i))) {
                return true;
            }
        }
        for (int i = 0; i < to.writeCount(); i++) {
            long address = to.writeAddress(i);
            long version = to.overwrittenVersion(i);
            if (wrote(from, address, version) || read(from, address, version) || overwrote(from, address, version)) {
                return true;
            }
        }
        return false;
    }

    private static boolean[][] pairwiseReachability(List<CommittedTransaction> transactions, boolean realTime) {
        int n = transactions.size();
        boolean[][] reach = new boolean[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                reach[i][j] = edge(transactions.get(i), transactions.get(j), realTime);
            }
        }
        for (int k = 0; k < n; k++) {
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    reach[i][j] |= reach[i][k] && reach[k][j];
                }
            }
        }
        return reach;
    }

    private static List<Set<Long>> cyclicComponents(List<CommittedTransaction> transactions, boolean[][] reach) {
        List<Set<Long>> components = new ArrayList<>();
        boolean[] placed = new boolean[transactions.size()];
        for (int i = 0; i < transactions.size(); i++) {
            if (reach[i][i] && !placed[i]) {
                Set<Long> component = new HashSet<>();
                for (int j = 0; j < transactions.size(); j++) {
                    if (reach[i][j] && reach[j][i]) {
                        placed[j] = true;
                        component.add(transactions.get(j).id());
                    }
                }
                components.add(component);
            }
        }
        return components;
    }

    private static boolean wrote(CommittedTransaction t, long address, long version) {
        for (int i = 0; i < t.writeCount(); i++) {
            if (t.writeAddress(i) == address && t.writtenVersion(i) == version) {
                return true;
            }
        }
        return false;
    }

    private static boolean overwrote(CommittedTransaction t, long address, long version) {
        for (int i = 0; i < t.writeCount(); i++) {
            if (t.writeAddress(i) == address && t.overwrittenVersion(i) == version) {
                return true;
            }
        }
        return false;
    }

    private static boolean read(CommittedTransaction t, long address, long version) {
        for (int i = 0; i < t.readCount(); i++) {
            if (t.readAddress(i) == address && t.readVersion(i) == version) {
                return true;
            }
        }
        return false;
    }
}
