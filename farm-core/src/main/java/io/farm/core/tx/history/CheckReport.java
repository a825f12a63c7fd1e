package io.farm.core.tx.history;

import java.util.List;

/**
 * What {@link SerializabilityChecker} found in a history.
 *
 * @param transactions    how many committed transactions were checked
 * @param realTime        whether real-time edges were included (strict serializability)
 * @param cycles          one witness cycle per strongly connected component of the dependency
 *                        graph that has a cycle; every cycle of the graph lies in one of them
 * @param impossibilities versions no correct execution can produce
 * @param complete        whether the history was complete; if not, {@link Impossibility.Kind#NEVER_WRITTEN}
 *                        is not checked
 */
public record CheckReport(int transactions, boolean realTime, List<Cycle> cycles,
                          List<Impossibility> impossibilities, boolean complete) {
    /** Copies the lists. */
    public CheckReport {
        cycles = List.copyOf(cycles);
        impossibilities = List.copyOf(impossibilities);
    }

    /** How many independent cycles (cyclic components) were found. */
    public int cycleCount() {
        return cycles.size();
    }

    /** Whether the history has no cycle and nothing impossible. */
    public boolean valid() {
        return cycles.isEmpty() && impossibilities.isEmpty();
    }

    /** A summary followed by every witness and impossibility, one per line. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder()
            .append(transactions).append(" transactions, ")
            .append(realTime ? "strict serializability: " : "serializability: ")
            .append(cycles.size()).append(" cycles, ")
            .append(impossibilities.size()).append(" impossible versions")
            .append(complete ? "" : " (incomplete history: unwritten reads not checked)");
        cycles.forEach(cycle -> text.append('\n').append(cycle));
        impossibilities.forEach(impossibility -> text.append('\n').append(impossibility));
        return text.toString();
    }
}
