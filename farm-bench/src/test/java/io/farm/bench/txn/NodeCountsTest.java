package io.farm.bench.txn;

import io.farm.core.fabric.FabricStats;
import io.farm.core.tx.AbortReason;
import io.farm.core.tx.TxRecordDescriptor;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class NodeCountsTest {
    private static NodeCounts counts(long base) {
        long[] sent = new long[NodeCounts.TYPES];
        for (int i = 0; i < sent.length; i++) {
            sent[i] = base + 10 + i;
        }
        long[] aborted = new long[AbortReason.values().length];
        for (int i = 0; i < aborted.length; i++) {
            aborted[i] = base + 20 + i;
        }
        return new NodeCounts(new FabricStats(base + 1, base + 2, base + 3, base + 4, base + 5, base + 6), sent,
            base + 30, base + 31, aborted);
    }

    @Test
    void decodingWhatWasEncodedGivesEveryCountBack() {
        MemorySegment wire = Arena.ofAuto().allocate(NodeCounts.LENGTH + 8);
        NodeCounts counts = counts(1_000_000_000_000L);

        counts.encode(wire, 8);
        NodeCounts decoded = NodeCounts.decode(wire, 8, NodeCounts.LENGTH);

        assertEquals(counts.fabric(), decoded.fabric());
        for (int type = TxRecordDescriptor.LOCK; type <= TxRecordDescriptor.TRUNCATE; type++) {
            assertEquals(counts.sent(type), decoded.sent(type));
        }
        assertEquals(counts.validationReads(), decoded.validationReads());
        assertEquals(counts.committed(), decoded.committed());
        for (AbortReason reason : AbortReason.values()) {
            assertEquals(counts.aborted(reason), decoded.aborted(reason), reason.name());
        }
    }

    @Test
    void aDifferenceOfSumsIsTheCountsAccruedInBetween() {
        NodeCounts sum = counts(100).plus(counts(7));
        NodeCounts interval = sum.minus(counts(100));

        assertEquals(counts(7).fabric(), interval.fabric());
        assertEquals(counts(7).sent(TxRecordDescriptor.COMMIT_PRIMARY), interval.sent(TxRecordDescriptor.COMMIT_PRIMARY));
        assertEquals(counts(7).abortedAttempts(), interval.abortedAttempts());
        assertEquals(6 * 27 + 15, counts(7).abortedAttempts());
    }

    @Test
    void countsOfAnotherLengthAreRefused() {
        MemorySegment wire = Arena.ofAuto().allocate(NodeCounts.LENGTH);

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> NodeCounts.decode(wire, 0, NodeCounts.LENGTH - 8));
        assertEquals("node counts of " + (NodeCounts.LENGTH - 8) + " bytes: expected " + NodeCounts.LENGTH, e.getMessage());
    }
}
