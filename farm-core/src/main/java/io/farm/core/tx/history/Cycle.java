package io.farm.core.tx.history;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A witness of a serializability violation: committed transactions each of which must precede
 * the next, the last preceding the first.
 *
 * @param dependencies the edges along the cycle, each starting where the previous one ended
 */
public record Cycle(List<Dependency> dependencies) {
    /**
     * @throws IllegalArgumentException if the edges are empty or do not form a closed path
     */
    public Cycle {
        dependencies = List.copyOf(dependencies);
        if (dependencies.isEmpty()) {
            throw new IllegalArgumentException("a cycle has at least one dependency");
        }
        for (int i = 0; i < dependencies.size(); i++) {
            Dependency next = dependencies.get((i + 1) % dependencies.size());
            if (dependencies.get(i).to() != next.from()) {
                throw new IllegalArgumentException("dependency " + i + " ends at " + dependencies.get(i).to()
                    + " but the next starts at " + next.from() + ": not a closed path");
            }
        }
    }

    /** The transactions on the cycle, in order. */
    public List<CommittedTransaction> transactions() {
        List<CommittedTransaction> transactions = new ArrayList<>(dependencies.size());
        dependencies.forEach(dependency -> transactions.add(dependency.from()));
        return transactions;
    }

    /** The ids of the transactions on the cycle, in order. */
    public List<Long> transactionIds() {
        return transactions().stream().map(CommittedTransaction::id).toList();
    }

    /** The kinds of the edges, in order. */
    public List<DependencyKind> kinds() {
        return dependencies.stream().map(Dependency::kind).toList();
    }

    /** e.g. {@code cycle of 2: T1 -rw-> T2 (...); T2 -rw-> T1 (...)}. */
    @Override
    public String toString() {
        return "cycle of " + dependencies.size() + ": "
            + dependencies.stream().map(Dependency::toString).collect(Collectors.joining("; "));
    }
}
