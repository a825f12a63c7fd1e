package io.farm.bench.check;

import io.farm.bench.report.JsonObject;
import io.farm.core.tx.AbortReason;
import io.farm.core.tx.history.CheckReport;
import io.farm.core.tx.history.CommittedTransaction;
import io.farm.core.tx.history.History;
import io.farm.core.tx.history.SerializabilityChecker;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The bank check's verdict on a run: the invariant (every audit and the final audit saw the
 * bank's total, no balance negative), strict serializability of the merged histories of every
 * node (the accounts' setup versions as initial versions), and whether that history is the whole
 * story (nothing dropped, no commit of unknown outcome, as many transactions recorded as
 * committed, no unexpected failure). It passes only if all hold.
 */
final class BankVerdict {
    private static final int WITNESSES_SHOWN = 5;

    private final JsonObject json;
    private final boolean passed;
    private final List<String> problems;
    private final CheckReport report;

    private BankVerdict(JsonObject json, boolean passed, List<String> problems, CheckReport report) {
        this.json = json;
        this.passed = passed;
        this.problems = problems;
        this.report = report;
    }

    /**
     * Judges a run.
     *
     * @param run       what ran: fabric, nodes, workers per node, seconds
     * @param accounts  every account, with its version after setup
     * @param outcomes  each node's outcome; exactly one ran the final audit
     * @param histories each node's recorded history
     */
    static BankVerdict judge(Run run, Accounts accounts, List<NodeOutcome> outcomes, List<History> histories) {
        NodeOutcome total = outcomes.stream().reduce(NodeOutcome.empty(), NodeOutcome::plus);
        WorkloadTally tally = total.tally();
        long expected = BankWorkload.INITIAL_BALANCE * accounts.count();

        List<CommittedTransaction> merged = new ArrayList<>();
        long dropped = 0;
        for (History history : histories) {
            merged.addAll(history.transactions());
            dropped += history.dropped();
        }
        long checkStart = System.nanoTime();
        CheckReport report = SerializabilityChecker.strict(accounts.initialVersions()).check(new History(merged, dropped));
        double checkSeconds = (System.nanoTime() - checkStart) / 1e9;
        int violations = report.cycleCount() + report.impossibilities().size();

        List<String> problems = new ArrayList<>();
        boolean invariant = tally.wrongAudits == 0 && total.finalTotal() == expected && total.finalNegative() == 0;
        if (tally.wrongAudits > 0) {
            problems.add(tally.wrongAudits + " audits saw a wrong total; the first: " + tally.firstWrongAudit);
        }
        if (total.finalTotal() != expected || total.finalNegative() != 0) {
            problems.add("the final audit saw a total of " + total.finalTotal() + " (expected " + expected + ") and "
                + total.finalNegative() + " negative balances");
        }
        if (violations > 0) {
            problems.add("the history is not strictly serializable: " + report.cycleCount() + " cycles, "
                + report.impossibilities().size() + " impossible versions");
        }
        if (dropped > 0) {
            problems.add("the recorders dropped " + dropped + " committed transactions (more than "
                + BankWorkload.MAX_COMMITS_PER_WORKER_SECOND + " per worker per second): the history is partial");
        }
        if (tally.outcomeUnknown > 0) {
            problems.add(tally.outcomeUnknown + " commits ended with an unknown outcome: the history may lack them");
        }
        if (dropped == 0 && merged.size() != total.committed()) {
            problems.add("the nodes counted " + total.committed() + " commits but recorded " + merged.size());
        }
        if (tally.errors > 0) {
            problems.add(tally.errors + " operations failed with an error; the first: " + tally.firstError);
        }

        JsonObject aborted = new JsonObject();
        for (AbortReason reason : AbortReason.values()) {
            aborted.put(reason.name().toLowerCase(Locale.ROOT), total.aborted()[reason.ordinal()]);
        }
        JsonObject json = new JsonObject()
            .put("check", "bank")
            .put("fabric", run.fabric())
            .put("nodes", run.nodes())
            .put("workers_per_node", run.workersPerNode())
            .put("accounts", accounts.count())
            .put("seconds", run.seconds())
            .put("committed", total.committed())
            .put("committed_per_s", total.committed() / run.seconds())
            .put("aborted", total.abortedTotal())
            .put("aborted_by_reason", aborted)
            .put("transfers", tally.transfers)
            .put("transfers_declined", tally.declined)
            .put("audits", tally.audits)
            .put("partial_audits", tally.partialAudits)
            .put("wrong_audits", tally.wrongAudits)
            .put("gave_up", tally.gaveUp)
            .put("outcome_unknown", tally.outcomeUnknown)
            .put("errors", tally.errors)
            .put("expected_total", expected)
            .put("final_total", total.finalTotal())
            .put("invariant_holds", invariant)
            .put("history_transactions", merged.size())
            .put("history_dropped", dropped)
            .put("serializability_violations", violations)
            .put("cycles", report.cycleCount())
            .put("impossibilities", report.impossibilities().size())
            .put("check_seconds", checkSeconds)
            .put("passed", problems.isEmpty());
        return new BankVerdict(json, problems.isEmpty(), problems, report);
    }

    /** Whether the run passed every check. */
    boolean passed() {
        return passed;
    }

    /** The figures, for {@code --json}. */
    JsonObject json() {
        return json;
    }

    /** Prints a summary, what failed and a few witnesses of violations. */
    void print(PrintStream out) {
        out.printf(Locale.ROOT, "bank check: %d committed (%d transfers, %d declined, %d audits, %d partial audits), %d aborted %s,"
                + " %d gave up%n",
            (long) json.get("committed"), (long) json.get("transfers"), (long) json.get("transfers_declined"),
            (long) json.get("audits"), (long) json.get("partial_audits"), (long) json.get("aborted"), json.get("aborted_by_reason"), (long) json.get("gave_up"));
        out.printf(Locale.ROOT, "invariant %s (final total %d of %d); %d transactions checked for strict serializability in %.1f s: "
                + "%d cycles, %d impossible versions%n",
            (boolean) json.get("invariant_holds") ? "holds" : "BROKEN", (long) json.get("final_total"),
            (long) json.get("expected_total"), (long) json.get("history_transactions"), (double) json.get("check_seconds"),
            report.cycleCount(), report.impossibilities().size());
        report.cycles().stream().limit(WITNESSES_SHOWN).forEach(cycle -> out.println("  cycle: " + cycle));
        report.impossibilities().stream().limit(WITNESSES_SHOWN).forEach(impossible -> out.println("  impossible: " + impossible));
        if (passed) {
            out.println("bank check PASSED");
        } else {
            out.println("bank check FAILED:");
            problems.forEach(problem -> out.println("  " + problem));
        }
    }

    /**
     * What was run.
     *
     * @param fabric         local or shm
     * @param nodes          cluster members
     * @param workersPerNode workers of each node, all running the workload
     * @param seconds        how long the workload ran
     */
    record Run(String fabric, int nodes, int workersPerNode, double seconds) {
    }
}
