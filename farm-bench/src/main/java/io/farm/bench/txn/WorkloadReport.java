package io.farm.bench.txn;

import io.farm.bench.report.JsonObject;
import io.farm.core.fabric.FabricStats;
import io.farm.core.tx.AbortReason;
import io.farm.core.tx.TxRecordDescriptor;

import java.util.Locale;

/**
 * The figures of one measured workload: throughput, aborts and latency from the clients; fabric
 * and commit-protocol counts summed over every node across the interval, per committed
 * transaction, beside what SOSP'15's formula expects of the committed transactions: Pw·(f+3)
 * one-sided writes, and one one-sided read per object read plus Pr validation reads.
 *
 * @param workload the workload
 * @param clients  what the driver's workers produced
 * @param counts   counts over the interval, summed over every node
 * @param nanos    the interval: from the first transaction's start until the last one finished
 * @param backups  f, the backups of each region
 */
record WorkloadReport(Workload workload, ClientResult clients, NodeCounts counts, long nanos, int backups) {
    double seconds() {
        return nanos / 1e9;
    }

    double committedPerSecond() {
        return clients.committed() / seconds();
    }

    /** Aborted attempts over all attempts (committed transactions and aborted attempts). */
    double abortRate() {
        long attempts = clients.committed() + counts.abortedAttempts();
        return attempts == 0 ? 0 : (double) counts.abortedAttempts() / attempts;
    }

    private double perCommit(long count) {
        return (double) count / clients.committed();
    }

    double expectedWrites() {
        return perCommit(clients.writtenPrimaries() * (backups + 3L));
    }

    /**
     * Records a committed transaction sends as implemented: LOCK, its reply and COMMIT-PRIMARY per
     * written primary, and one COMMIT-BACKUP per backup node of the written objects' regions (one
     * record carries every object a node backs up, where the formula counts f per primary).
     */
    double expectedRecords() {
        return perCommit(3 * clients.writtenPrimaries() + clients.backupNodes());
    }

    double expectedReads() {
        return perCommit(clients.objectReads() + clients.validationReads());
    }

    double p50Micros() {
        return clients.latency().getValueAtPercentile(50) / 1e3;
    }

    double p99Micros() {
        return clients.latency().getValueAtPercentile(99) / 1e3;
    }

    JsonObject json() {
        FabricStats fabric = counts.fabric();
        JsonObject records = new JsonObject();
        JsonObject recordsPerCommit = new JsonObject();
        String[] names = {"lock", "lock_reply", "commit_backup", "commit_primary", "abort", "truncate"};
        for (int i = 0; i < names.length; i++) {
            long sent = counts.sent(TxRecordDescriptor.LOCK + i);
            records.put(names[i], sent);
            recordsPerCommit.put(names[i], perCommit(sent));
        }
        double writes = perCommit(fabric.writeOps());
        double reads = perCommit(fabric.readOps());
        return new JsonObject()
            .put("name", workload.name())
            .put("reads_per_txn", workload.reads())
            .put("writes_per_txn", workload.writes())
            .put("seconds", seconds())
            .put("committed", clients.committed())
            .put("committed_per_s", committedPerSecond())
            .put("aborted_attempts", counts.abortedAttempts())
            .put("aborts_by_reason", abortsByReason())
            .put("gave_up", clients.gaveUp())
            .put("abort_rate", abortRate())
            .put("p50_us", p50Micros())
            .put("p99_us", p99Micros())
            .put("one_sided_writes", writes)
            .put("one_sided_reads", reads)
            .put("messages", perCommit(fabric.messageOps()))
            .put("pw", perCommit(clients.writtenPrimaries()))
            .put("pr", perCommit(clients.remoteReadOnly()))
            .put("expected_writes", expectedWrites())
            .put("expected_reads", expectedReads())
            .put("writes_ratio", writes / expectedWrites())
            .put("expected_records", expectedRecords())
            .put("reads_ratio", reads / expectedReads())
            .put("object_reads", perCommit(clients.objectReads()))
            .put("read_retries", perCommit(clients.readRetries()))
            .put("validation_reads", perCommit(counts.validationReads()))
            .put("expected_validation_reads", perCommit(clients.validationReads()))
            .put("records_per_commit", recordsPerCommit)
            .put("records", records)
            .put("expected_commit_primary_records", clients.writtenPrimaries())
            .put("expected_commit_backup_records", clients.backupNodes())
            .put("accounting", new JsonObject()
                .put("read_ops", fabric.readOps()).put("read_bytes", fabric.readBytes())
                .put("write_ops", fabric.writeOps()).put("write_bytes", fabric.writeBytes())
                .put("message_ops", fabric.messageOps()).put("message_bytes", fabric.messageBytes())
                .put("validation_reads", counts.validationReads())
                .put("committed_all_nodes", counts.committed()));
    }

    private JsonObject abortsByReason() {
        JsonObject reasons = new JsonObject();
        for (AbortReason reason : AbortReason.values()) {
            reasons.put(reason.name().toLowerCase(Locale.ROOT), counts.aborted(reason));
        }
        return reasons;
    }

    /** One line of the table on stderr. */
    String row() {
        return String.format(Locale.ROOT, "%-7s %,11.0f %7.4f %9.1f %9.1f %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f",
            workload.name(), committedPerSecond(), abortRate(), p50Micros(), p99Micros(),
            perCommit(counts.fabric().writeOps()), expectedWrites(), perCommit(counts.fabric().readOps()), expectedReads(),
            perCommit(counts.fabric().messageOps()), perCommit(clients.writtenPrimaries()));
    }

    static String header() {
        return String.format(Locale.ROOT, "%-7s %11s %7s %9s %9s %7s %7s %7s %7s %7s %7s", "", "commits/s", "aborts",
            "p50 us", "p99 us", "writes", "Pw(f+3)", "reads", "r+Pr", "msgs", "Pw");
    }
}
