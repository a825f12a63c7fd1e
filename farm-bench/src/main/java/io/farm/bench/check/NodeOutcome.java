package io.farm.bench.check;

import io.farm.core.tx.AbortReason;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Properties;

/**
 * What one node of the bank check did from the start of its workload: its transactions'
 * commits and aborts by reason (from its {@code TxStats}), its workers' tally, and the final
 * audit's result if this node ran it. Node processes pass it to the checking process as a
 * properties file ({@link #store}, {@link #load}).
 *
 * @param committed     transactions this node's workers committed (the final audit included)
 * @param aborted       attempts aborted, by {@link AbortReason} ordinal
 * @param tally         the workload's counts
 * @param finalTotal    the total the final audit read, or -1 if this node did not run it
 * @param finalNegative negative balances the final audit read
 */
record NodeOutcome(long committed, long[] aborted, WorkloadTally tally, long finalTotal, int finalNegative) {
    /** Every count of this outcome and {@code other} added up; the final audit is whichever of the two ran it. */
    NodeOutcome plus(NodeOutcome other) {
        long[] sum = aborted.clone();
        for (int i = 0; i < sum.length; i++) {
            sum[i] += other.aborted[i];
        }
        WorkloadTally tallies = new WorkloadTally().add(tally).add(other.tally);
        boolean mine = finalTotal >= 0;
        return new NodeOutcome(committed + other.committed, sum, tallies, mine ? finalTotal : other.finalTotal,
            mine ? finalNegative : other.finalNegative);
    }

    /** Attempts aborted for every reason. */
    long abortedTotal() {
        long total = 0;
        for (long count : aborted) {
            total += count;
        }
        return total;
    }

    /** An outcome with nothing counted and no final audit. */
    static NodeOutcome empty() {
        return new NodeOutcome(0, new long[AbortReason.values().length], new WorkloadTally(), -1, 0);
    }

    /** Writes the outcome to {@code file}, atomically. */
    void store(Path file) {
        Properties properties = new Properties();
        properties.setProperty("committed", Long.toString(committed));
        for (AbortReason reason : AbortReason.values()) {
            properties.setProperty("aborted." + reason.name(), Long.toString(aborted[reason.ordinal()]));
        }
        properties.setProperty("transfers", Long.toString(tally.transfers));
        properties.setProperty("declined", Long.toString(tally.declined));
        properties.setProperty("audits", Long.toString(tally.audits));
        properties.setProperty("partial_audits", Long.toString(tally.partialAudits));
        properties.setProperty("wrong_audits", Long.toString(tally.wrongAudits));
        properties.setProperty("gave_up", Long.toString(tally.gaveUp));
        properties.setProperty("outcome_unknown", Long.toString(tally.outcomeUnknown));
        properties.setProperty("errors", Long.toString(tally.errors));
        if (tally.firstWrongAudit != null) {
            properties.setProperty("first_wrong_audit", tally.firstWrongAudit);
        }
        if (tally.firstError != null) {
            properties.setProperty("first_error", tally.firstError);
        }
        properties.setProperty("final_total", Long.toString(finalTotal));
        properties.setProperty("final_negative", Integer.toString(finalNegative));
        Path partial = file.resolveSibling(file.getFileName() + ".partial");
        try (Writer out = Files.newBufferedWriter(partial)) {
            properties.store(out, "bank check: one node's outcome");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the outcome to " + partial, e);
        }
        try {
            Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot move the outcome to " + file, e);
        }
    }

    /**
     * Reads what {@link #store} wrote.
     *
     * @throws IllegalStateException if a count is missing or not a number
     */
    static NodeOutcome load(Path file) {
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the outcome in " + file, e);
        }
        long[] aborted = new long[AbortReason.values().length];
        for (AbortReason reason : AbortReason.values()) {
            aborted[reason.ordinal()] = count(properties, "aborted." + reason.name(), file);
        }
        WorkloadTally tally = new WorkloadTally();
        tally.transfers = count(properties, "transfers", file);
        tally.declined = count(properties, "declined", file);
        tally.audits = count(properties, "audits", file);
        tally.partialAudits = count(properties, "partial_audits", file);
        tally.wrongAudits = count(properties, "wrong_audits", file);
        tally.gaveUp = count(properties, "gave_up", file);
        tally.outcomeUnknown = count(properties, "outcome_unknown", file);
        tally.errors = count(properties, "errors", file);
        tally.firstWrongAudit = properties.getProperty("first_wrong_audit");
        tally.firstError = properties.getProperty("first_error");
        return new NodeOutcome(count(properties, "committed", file), aborted, tally, count(properties, "final_total", file),
            (int) count(properties, "final_negative", file));
    }

    private static long count(Properties properties, String key, Path file) {
        String value = properties.getProperty(key);
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalStateException(file + " has no count " + key + " (found '" + value + "')");
        }
    }
}
