package io.farm.bench.check;

import io.farm.core.tx.CommitOutcomeUnknownException;
import io.farm.core.tx.TransactionAbortedException;

import java.util.Locale;

/**
 * What the bank workload of one or more workers did: operations that committed, audits that saw
 * a wrong total, operations given up and unexpected failures. A worker updates its own tally on
 * its thread; tallies are added up once the workers finished ({@link #add}).
 */
final class WorkloadTally {
    /** Committed transfers that moved money. */
    long transfers;
    /** Committed transfers that moved nothing: the source's balance was below the amount. */
    long declined;
    /** Committed audits. */
    long audits;
    /** Committed partial audits. */
    long partialAudits;
    /** Committed audits that saw a total other than the bank's (full audits), or a negative balance. */
    long wrongAudits;
    /**
     * Operations that still aborted after every attempt, or were still retrying when the run
     * ended (each attempt's abort is in the node's TxStats).
     */
    long gaveUp;
    /** Operations whose commit outcome was left unknown: the history may lack a committed transaction. */
    long outcomeUnknown;
    /** Operations that failed with anything but an abort: a bug. */
    long errors;
    /** The first wrong audit, described, or null. */
    String firstWrongAudit;
    /** The first error, described, or null. */
    String firstError;

    /** Counts a committed audit that read {@code total} with {@code negative} negative balances. */
    void countAudit(long total, long expected, int negative) {
        audits++;
        if (total != expected || negative != 0) {
            wrongAudits++;
            if (firstWrongAudit == null) {
                firstWrongAudit = String.format(Locale.ROOT, "an audit saw a total of %d (expected %d) and %d negative balances",
                    total, expected, negative);
            }
        }
    }

    /** Counts a committed partial audit that read {@code negative} negative balances. */
    void countPartialAudit(int negative) {
        partialAudits++;
        if (negative != 0) {
            wrongAudits++;
            if (firstWrongAudit == null) {
                firstWrongAudit = "a partial audit saw " + negative + " negative balances";
            }
        }
    }

    /** Counts an operation that failed with {@code cause} (unwrapped). */
    void countFailure(Throwable cause) {
        switch (cause) {
            case TransactionAbortedException ignored -> gaveUp++;
            case BankWorkload.RunOverException ignored -> gaveUp++;
            case CommitOutcomeUnknownException unknown -> {
                outcomeUnknown++;
                if (firstError == null) {
                    firstError = unknown.toString();
                }
            }
            default -> {
                errors++;
                if (firstError == null) {
                    firstError = cause.toString();
                }
            }
        }
    }

    /** Adds {@code other}'s counts to this tally's; the first descriptions stay. */
    WorkloadTally add(WorkloadTally other) {
        transfers += other.transfers;
        declined += other.declined;
        audits += other.audits;
        partialAudits += other.partialAudits;
        wrongAudits += other.wrongAudits;
        gaveUp += other.gaveUp;
        outcomeUnknown += other.outcomeUnknown;
        errors += other.errors;
        firstWrongAudit = firstWrongAudit != null ? firstWrongAudit : other.firstWrongAudit;
        firstError = firstError != null ? firstError : other.firstError;
        return this;
    }
}
