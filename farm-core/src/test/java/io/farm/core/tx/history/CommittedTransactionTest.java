package io.farm.core.tx.history;

import io.farm.core.addr.GlobalAddress;
import io.farm.core.object.ObjectLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CommittedTransactionTest {
    private static final long X = GlobalAddress.of(1, 0);
    private static final long Y = GlobalAddress.of(2, 128);

    @Test
    void aRecordKeepsReadsWritesAndInterval() {
        CommittedTransaction t = CommittedTransaction.builder(9, 100)
            .read(X, 3).read(Y, 4).read(X, 5).write(Y, 4, 6).commit(250);

        assertEquals(9, t.id());
        assertEquals(100, t.startNanos());
        assertEquals(250, t.commitNanos());
        assertEquals(3, t.readCount());
        assertEquals(X, t.readAddress(2));
        assertEquals(5, t.readVersion(2));
        assertEquals(1, t.writeCount());
        assertEquals(Y, t.writeAddress(0));
        assertEquals(4, t.overwrittenVersion(0));
        assertEquals(6, t.writtenVersion(0));
        assertEquals("T9", t.toString());
        assertTrue(t.describe().contains("w(" + GlobalAddress.toString(Y) + " v4->v6)"), t.describe());
    }

    @Test
    void badRecordsAreRejectedWithTheReason() {
        CommittedTransaction.Builder builder = CommittedTransaction.builder(1, 100).write(X, 0, 1);

        assertMessage("out of range", () -> builder.read(X, -1));
        assertMessage("out of range", () -> builder.read(X, ObjectLayout.MAX_VERSION + 1));
        assertMessage("installs the version it overwrote", () -> builder.write(Y, 2, 2));
        assertMessage("already wrote", () -> builder.write(X, 1, 2));
        assertMessage("before it started", () -> builder.commit(99));
        assertEquals(1, builder.commit(100).writeCount());
        assertThrows(IllegalStateException.class, () -> builder.read(X, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> CommittedTransaction.builder(2, 0).commit(0).readAddress(0));
    }

    private static void assertMessage(String expected, Executable call) {
        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class, call);
        assertTrue(failure.getMessage().contains(expected), failure.getMessage());
    }
}
