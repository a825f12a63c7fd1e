package io.farm.bench.txn;

import io.farm.core.Farm;
import io.farm.core.fabric.FabricStats;
import io.farm.core.tx.AbortReason;
import io.farm.core.tx.TxRecordDescriptor;
import io.farm.core.tx.TxStats;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A snapshot of one node's counts: its fabric accounting ({@code node.stats()}) and its
 * transaction counts ({@code transactions().stats()}), and its wire layout in the answer of
 * {@link TxnBenchService#COUNTS}: twenty little-endian longs.
 *
 * <pre>
 *   0          8           16          24           32          40            48
 *  +----------+-----------+-----------+------------+-----------+-------------+
 *  | read ops | read bytes| write ops | write bytes| msg ops   | msg bytes   |   fabric
 *  +----------+-----------+-----------+------------+-----------+-------------+
 *   48     56          64             72              80      88         96
 *  +------+-----------+---------------+---------------+-------+----------+
 *  | LOCK | LOCK_REPLY| COMMIT_BACKUP | COMMIT_PRIMARY| ABORT | TRUNCATE |       records sent
 *  +------+-----------+---------------+---------------+-------+----------+
 *   96                 104         112
 *  +------------------+-----------+------------------------------------+
 *  | validation reads | committed | aborted, by AbortReason ordinal (6) |       transactions
 *  +------------------+-----------+------------------------------------+
 * </pre>
 *
 * @param fabric          operations and bytes the node issued
 * @param sent            records and messages of the commit protocol the node sent, by type less {@link TxRecordDescriptor#LOCK}
 * @param validationReads one-sided reads its coordinators made to validate
 * @param committed       transactions its workers committed
 * @param aborted         transaction attempts its workers aborted, by {@link AbortReason} ordinal
 */
record NodeCounts(FabricStats fabric, long[] sent, long validationReads, long committed, long[] aborted) {
    /** Record and message types of the commit protocol, in the order of {@link #sent}. */
    static final int TYPES = TxRecordDescriptor.TRUNCATE - TxRecordDescriptor.LOCK + 1;
    private static final int REASONS = AbortReason.values().length;
    private static final int FABRIC_WORDS = 6;
    /** Length of the encoded counts. */
    static final int LENGTH = (FABRIC_WORDS + TYPES + 2 + REASONS) * Long.BYTES;

    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** All zero. */
    static final NodeCounts ZERO = new NodeCounts(FabricStats.ZERO, new long[TYPES], 0, 0, new long[REASONS]);

    /** The counts of {@code farm}'s node now. */
    static NodeCounts of(Farm farm) {
        TxStats stats = farm.transactions().stats();
        long[] sent = new long[TYPES];
        for (int i = 0; i < TYPES; i++) {
            sent[i] = stats.sent(TxRecordDescriptor.LOCK + i);
        }
        long[] aborted = new long[REASONS];
        for (AbortReason reason : AbortReason.values()) {
            aborted[reason.ordinal()] = stats.aborted(reason);
        }
        return new NodeCounts(farm.node().stats(), sent, stats.validationReads(), stats.committed(), aborted);
    }

    /** Records or messages of {@code type} sent. */
    long sent(int type) {
        return sent[type - TxRecordDescriptor.LOCK];
    }

    /** Aborted attempts, every reason. */
    long abortedAttempts() {
        long total = 0;
        for (long count : aborted) {
            total += count;
        }
        return total;
    }

    /** Aborted attempts for {@code reason}. */
    long aborted(AbortReason reason) {
        return aborted[reason.ordinal()];
    }

    NodeCounts plus(NodeCounts o) {
        return new NodeCounts(fabric.plus(o.fabric), combine(sent, o.sent, 1), validationReads + o.validationReads,
            committed + o.committed, combine(aborted, o.aborted, 1));
    }

    NodeCounts minus(NodeCounts earlier) {
        return new NodeCounts(fabric.minus(earlier.fabric), combine(sent, earlier.sent, -1),
            validationReads - earlier.validationReads, committed - earlier.committed, combine(aborted, earlier.aborted, -1));
    }

    private static long[] combine(long[] a, long[] b, int sign) {
        long[] result = new long[a.length];
        for (int i = 0; i < a.length; i++) {
            result[i] = a[i] + sign * b[i];
        }
        return result;
    }

    /** Writes the counts at {@code offset} of {@code dst} ({@link #LENGTH} bytes). */
    void encode(MemorySegment dst, long offset) {
        long[] words = new long[LENGTH / Long.BYTES];
        long[] head = {fabric.readOps(), fabric.readBytes(), fabric.writeOps(), fabric.writeBytes(), fabric.messageOps(),
            fabric.messageBytes()};
        System.arraycopy(head, 0, words, 0, FABRIC_WORDS);
        System.arraycopy(sent, 0, words, FABRIC_WORDS, TYPES);
        words[FABRIC_WORDS + TYPES] = validationReads;
        words[FABRIC_WORDS + TYPES + 1] = committed;
        System.arraycopy(aborted, 0, words, FABRIC_WORDS + TYPES + 2, REASONS);
        for (int i = 0; i < words.length; i++) {
            dst.set(WORD, offset + (long) i * Long.BYTES, words[i]);
        }
    }

    /**
     * Reads counts {@link #encode} wrote.
     *
     * @throws IllegalArgumentException if {@code length} is not {@link #LENGTH}
     */
    static NodeCounts decode(MemorySegment src, long offset, int length) {
        if (length != LENGTH) {
            throw new IllegalArgumentException("node counts of " + length + " bytes: expected " + LENGTH);
        }
        long[] words = new long[LENGTH / Long.BYTES];
        for (int i = 0; i < words.length; i++) {
            words[i] = src.get(WORD, offset + (long) i * Long.BYTES);
        }
        long[] sent = new long[TYPES];
        System.arraycopy(words, FABRIC_WORDS, sent, 0, TYPES);
        long[] aborted = new long[REASONS];
        System.arraycopy(words, FABRIC_WORDS + TYPES + 2, aborted, 0, REASONS);
        return new NodeCounts(new FabricStats(words[0], words[1], words[2], words[3], words[4], words[5]), sent,
            words[FABRIC_WORDS + TYPES], words[FABRIC_WORDS + TYPES + 1], aborted);
    }
}
