package io.farm.bench.check;

import io.farm.core.addr.GlobalAddress;
import io.farm.core.tx.AbortReason;
import io.farm.core.tx.history.CommittedTransaction;
import io.farm.core.tx.history.History;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The verdict fails a run for each thing that can go wrong, and passes a clean one. */
class BankVerdictTest {
    private static final long X = GlobalAddress.of(1, 0);
    private static final long Y = GlobalAddress.of(2, 64);
    /** Two accounts, each at version 3 after setup. */
    private static final Accounts BANK = new Accounts(new long[] {X, Y}, new long[] {3, 3});
    private static final BankVerdict.Run RUN = new BankVerdict.Run("local", 2, 2, 1.0);

    /** A transfer of 10 from X to Y, then an audit that sees it: 2 commits. */
    private static History cleanHistory() {
        CommittedTransaction transfer = CommittedTransaction.builder(1, 10).write(X, 3, 4).write(Y, 3, 4).commit(20);
        CommittedTransaction audit = CommittedTransaction.builder(2, 30).read(X, 4).read(Y, 4).commit(40);
        return History.of(List.of(transfer, audit));
    }

    private static NodeOutcome outcome(long committed, long finalTotal, WorkloadTally tally) {
        long[] aborted = new long[AbortReason.values().length];
        aborted[AbortReason.CONFLICT.ordinal()] = 5;
        return new NodeOutcome(committed, aborted, tally, finalTotal, 0);
    }

    private static WorkloadTally tally() {
        WorkloadTally tally = new WorkloadTally();
        tally.transfers = 1;
        tally.countAudit(2000, 2000, 0);
        return tally;
    }

    private static BankVerdict judge(History history, NodeOutcome... outcomes) {
        return BankVerdict.judge(RUN, BANK, List.of(outcomes), List.of(history, History.of(List.of())));
    }

    @Test
    void aCleanRunPasses() {
        BankVerdict verdict = judge(cleanHistory(), outcome(2, 2000, tally()), outcome(0, -1, new WorkloadTally()));

        assertTrue(verdict.passed(), verdict.json()::toString);
        assertEquals(true, verdict.json().get("invariant_holds"));
        assertEquals(0L, verdict.json().get("serializability_violations"));
        assertEquals(2L, verdict.json().get("history_transactions"));
        assertEquals(5L * 2, verdict.json().get("aborted"), "aborts of every node add up");
    }

    @Test
    void anAuditThatReadHalfATransferIsAViolation() {
        // The audit sees the transfer's write of X but not of Y: a fractured read.
        CommittedTransaction transfer = CommittedTransaction.builder(1, 10).write(X, 3, 4).write(Y, 3, 4).commit(20);
        CommittedTransaction audit = CommittedTransaction.builder(2, 15).read(X, 4).read(Y, 3).commit(25);

        BankVerdict verdict = judge(History.of(List.of(transfer, audit)), outcome(2, 2000, tally()));

        assertFalse(verdict.passed());
        assertEquals(1L, verdict.json().get("serializability_violations"));
        assertEquals(1L, verdict.json().get("cycles"));
    }

    @Test
    void aLostUpdateIsAViolation() {
        // Two transfers both overwrote version 4 of X and installed the same version 5.
        CommittedTransaction first = CommittedTransaction.builder(1, 10).write(X, 3, 4).write(Y, 3, 4).commit(20);
        CommittedTransaction second = CommittedTransaction.builder(2, 30).write(X, 4, 5).commit(40);
        CommittedTransaction third = CommittedTransaction.builder(3, 30).write(X, 4, 5).commit(40);

        BankVerdict verdict = judge(History.of(List.of(first, second, third)), outcome(3, 2000, tally()));

        assertFalse(verdict.passed());
        assertTrue((long) verdict.json().get("serializability_violations") > 0, verdict.json()::toString);
    }

    @Test
    void aWrongAuditTotalBreaksTheInvariant() {
        WorkloadTally tally = tally();
        tally.countAudit(1990, 2000, 0);

        BankVerdict verdict = judge(cleanHistory(), outcome(2, 2000, tally));

        assertFalse(verdict.passed());
        assertEquals(false, verdict.json().get("invariant_holds"));
        assertEquals(1L, verdict.json().get("wrong_audits"));
    }

    @Test
    void aWrongFinalTotalBreaksTheInvariant() {
        BankVerdict verdict = judge(cleanHistory(), outcome(2, 2010, tally()));

        assertFalse(verdict.passed());
        assertEquals(false, verdict.json().get("invariant_holds"));
    }

    @Test
    void aNegativeBalanceInAPartialAuditBreaksTheInvariant() {
        WorkloadTally tally = tally();
        tally.countPartialAudit(1);

        BankVerdict verdict = judge(cleanHistory(), outcome(2, 2000, tally));

        assertFalse(verdict.passed());
        assertEquals(false, verdict.json().get("invariant_holds"));
    }

    @Test
    void aHistoryWithDroppedTransactionsFailsTheCheck() {
        History partial = new History(cleanHistory().transactions(), 1);

        BankVerdict verdict = judge(partial, outcome(3, 2000, tally()));

        assertFalse(verdict.passed(), "a partial history never passes");
        assertEquals(1L, verdict.json().get("history_dropped"));
        assertEquals(true, verdict.json().get("invariant_holds"));
    }

    @Test
    void moreCommitsThanRecordedFailsTheCheck() {
        BankVerdict verdict = judge(cleanHistory(), outcome(3, 2000, tally()));

        assertFalse(verdict.passed());
    }

    @Test
    void anErrorFailsTheCheck() {
        WorkloadTally tally = tally();
        tally.countFailure(new IllegalStateException("boom"));

        BankVerdict verdict = judge(cleanHistory(), outcome(2, 2000, tally));

        assertFalse(verdict.passed());
        assertEquals(1L, verdict.json().get("errors"));
    }
}
