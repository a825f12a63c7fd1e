package io.farm.core.tx.history;

import io.farm.core.addr.GlobalAddress;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SerializabilityCheckerTest {
    private static final long X = GlobalAddress.of(1, 0);
    private static final long Y = GlobalAddress.of(1, 64);
    private static final SerializabilityChecker STRICT = SerializabilityChecker.strict(new InitialVersions());
    private static final SerializabilityChecker SERIALIZABLE = SerializabilityChecker.serializable(new InitialVersions());

    @Test
    void aWriteReadEdgeRunsFromTheWriterToTheReader() {
        // A fractured read: T1 writes x1 and y1; T2 reads x1 but y0: T1 -wr-> T2 -rw-> T1.
        CommittedTransaction t1 = tx(1, 0).write(X, 0, 1).write(Y, 0, 1).commit(10);
        CommittedTransaction t2 = tx(2, 0).read(X, 1).read(Y, 0).commit(10);

        Cycle cycle = onlyCycle(SERIALIZABLE.check(History.of(List.of(t1, t2))));

        assertEquals(new Dependency(t1, t2, DependencyKind.WRITE_READ, X, 1), dependencyFrom(cycle, t1));
        assertEquals(new Dependency(t2, t1, DependencyKind.READ_WRITE, Y, 0), dependencyFrom(cycle, t2));
    }

    @Test
    void aWriteWriteEdgeRunsFromTheWriterToTheOverwriter() {
        // T1 writes x1 and T2 overwrites it; T1 reads y1, which T2 wrote: T1 -ww-> T2 -wr-> T1.
        CommittedTransaction t1 = tx(1, 0).write(X, 0, 1).read(Y, 1).commit(10);
        CommittedTransaction t2 = tx(2, 0).write(X, 1, 2).write(Y, 0, 1).commit(10);

        Cycle cycle = onlyCycle(SERIALIZABLE.check(History.of(List.of(t1, t2))));

        assertEquals(new Dependency(t1, t2, DependencyKind.WRITE_WRITE, X, 1), dependencyFrom(cycle, t1));
        assertEquals(new Dependency(t2, t1, DependencyKind.WRITE_READ, Y, 1), dependencyFrom(cycle, t2));
    }

    @Test
    void aRealTimeEdgeRunsFromAnEarlierCommitToALaterStart() {
        // T1 commits at 10, before T2 starts at 20, yet T1 read y1, which T2 wrote: T1 -rt-> T2 -wr-> T1.
        CommittedTransaction t1 = tx(1, 0).read(Y, 1).commit(10);
        CommittedTransaction t2 = tx(2, 20).write(Y, 0, 1).commit(30);

        Cycle cycle = onlyCycle(STRICT.check(History.of(List.of(t1, t2))));

        assertEquals(new Dependency(t1, t2, DependencyKind.REAL_TIME, GlobalAddress.NULL, -1), dependencyFrom(cycle, t1));
        assertTrue(cycle.toString().contains("T1 committed at 10, before T2 started at 20"), cycle::toString);
        assertTrue(SERIALIZABLE.check(History.of(List.of(t1, t2))).valid());
    }

    @Test
    void overlappingIntervalsAreNotOrderedInRealTime() {
        CommittedTransaction t1 = tx(1, 0).read(Y, 1).commit(20);
        CommittedTransaction t2 = tx(2, 20).write(Y, 0, 1).commit(30);

        assertTrue(STRICT.check(History.of(List.of(t1, t2))).valid());
    }

    @Test
    void aRealTimeEdgeIsFoundThroughManyCommitsInBetween() {
        // T1 commits first, a hundred unrelated transactions commit, then T2 starts: the edge
        // T1 -rt-> T2 exists only through the chain of commit points.
        List<CommittedTransaction> transactions = new ArrayList<>();
        CommittedTransaction t1 = tx(1, 0).read(Y, 1).commit(10);
        transactions.add(t1);
        for (int i = 0; i < 100; i++) {
            transactions.add(tx(100 + i, 11 + i).read(X, 0).commit(12 + i));
        }
        CommittedTransaction t2 = tx(2, 500).write(Y, 0, 1).commit(510);
        transactions.add(t2);

        Cycle cycle = onlyCycle(STRICT.check(History.of(transactions)));

        assertEquals(List.of(1L, 2L), cycle.transactionIds().stream().sorted().toList());
        assertEquals(DependencyKind.REAL_TIME, dependencyFrom(cycle, t1).kind());
    }

    @Test
    void aReadModifyWriteOfOneObjectHasNoSelfEdge() {
        CommittedTransaction t1 = tx(1, 0).read(X, 0).write(X, 0, 1).commit(10);
        CommittedTransaction t2 = tx(2, 20).read(X, 1).write(X, 1, 2).commit(30);

        assertTrue(STRICT.check(History.of(List.of(t1, t2))).valid());
    }

    @Test
    void independentCyclesAreCountedSeparately() {
        CommittedTransaction a1 = tx(1, 0).read(X, 0).write(Y, 0, 1).commit(10);
        CommittedTransaction a2 = tx(2, 0).read(Y, 0).write(X, 0, 1).commit(10);
        long z = GlobalAddress.of(2, 0);
        long w = GlobalAddress.of(2, 64);
        CommittedTransaction b1 = tx(3, 0).read(z, 0).write(w, 0, 1).commit(10);
        CommittedTransaction b2 = tx(4, 0).read(w, 0).write(z, 0, 1).commit(10);

        CheckReport report = STRICT.check(History.of(List.of(a1, b1, a2, b2)));

        assertEquals(2, report.cycleCount(), report::toString);
        assertFalse(report.valid());
    }

    @Test
    void twoWritersOfOneVersionAreImpossible() {
        CommittedTransaction t1 = tx(1, 0).write(X, 0, 1).commit(10);
        CommittedTransaction t2 = tx(2, 20).write(X, 1, 2).commit(30);
        CommittedTransaction t3 = tx(3, 20).write(X, 1, 2).commit(30);

        CheckReport report = STRICT.check(History.of(List.of(t1, t2, t3)));

        assertEquals(List.of(new Impossibility(Impossibility.Kind.WRITTEN_TWICE, X, 2, List.of(2L, 3L))),
            report.impossibilities());
        assertEquals(List.of(2L, 3L), onlyCycle(report).transactionIds().stream().sorted().toList());
    }

    @Test
    void writingTheInitialVersionIsImpossible() {
        CommittedTransaction t1 = tx(1, 0).write(X, 7, 0).commit(10);

        CheckReport report = STRICT.check(History.of(List.of(t1)));

        assertEquals(List.of(new Impossibility(Impossibility.Kind.WRITTEN_TWICE, X, 0, List.of(1L)),
            new Impossibility(Impossibility.Kind.NEVER_WRITTEN, X, 7, List.of(1L))), report.impossibilities());
        assertTrue(report.impossibilities().get(0).toString().contains("initial state"));
    }

    @Test
    void readingAVersionNobodyWroteIsImpossible() {
        CommittedTransaction t1 = tx(1, 0).read(X, 3).commit(10);
        CommittedTransaction t2 = tx(2, 0).read(X, 3).write(Y, 4, 5).commit(10);

        CheckReport report = STRICT.check(History.of(List.of(t1, t2)));

        assertTrue(report.impossibilities().contains(
            new Impossibility(Impossibility.Kind.NEVER_WRITTEN, X, 3, List.of(1L, 2L))), report::toString);
        assertTrue(report.impossibilities().contains(
            new Impossibility(Impossibility.Kind.NEVER_WRITTEN, Y, 4, List.of(2L))), report::toString);
        assertEquals(2, report.impossibilities().size());
    }

    @Test
    void aRegisteredInitialVersionReplacesZero() {
        InitialVersions initial = new InitialVersions().register(X, 42);
        CommittedTransaction t1 = tx(1, 0).read(X, 42).commit(10);
        CommittedTransaction t2 = tx(2, 0).read(X, 0).commit(10);

        CheckReport report = SerializabilityChecker.strict(initial).check(History.of(List.of(t1, t2)));

        assertEquals(List.of(new Impossibility(Impossibility.Kind.NEVER_WRITTEN, X, 0, List.of(2L))), report.impossibilities());
        assertEquals(0, initial.initialVersion(Y));
        assertThrows(IllegalArgumentException.class, () -> initial.register(X, 43));
    }

    @Test
    void anIncompleteHistoryDoesNotReportUnwrittenVersionsButStillFindsCycles() {
        CommittedTransaction t1 = tx(1, 0).read(X, 3).write(Y, 0, 1).commit(10);
        CommittedTransaction t2 = tx(2, 0).read(Y, 0).write(X, 3, 4).commit(10);

        CheckReport report = STRICT.check(new History(List.of(t1, t2), 5));

        assertFalse(report.complete());
        assertTrue(report.impossibilities().isEmpty(), report::toString);
        assertEquals(1, report.cycleCount());
    }

    @Test
    void duplicateTransactionIdsAreRejected() {
        CommittedTransaction t1 = tx(1, 0).commit(10);
        CommittedTransaction again = tx(1, 20).commit(30);

        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class,
            () -> STRICT.check(History.of(List.of(t1, again))));
        assertTrue(failure.getMessage().contains("transaction id 1 appears twice"), failure.getMessage());
    }

    @Test
    void anEmptyHistoryIsValid() {
        CheckReport report = STRICT.check(History.of(List.of()));

        assertTrue(report.valid());
        assertEquals(0, report.transactions());
    }

    @Test
    void aHundredThousandSerialTransactionsCheckCleanAndOneInjectedAnomalyIsFound() {
        SerialHistory serial = new SerialHistory(7, 10_000).run(100_000, 3, 2);
        SerializabilityChecker checker = SerializabilityChecker.strict(serial.initialVersions());

        assertTrue(checker.check(serial.history()).valid());

        long x = serial.address(0);
        long y = serial.address(1);
        long vx = serial.currentVersion(0);
        long vy = serial.currentVersion(1);
        CommittedTransaction.Builder a = serial.begin().read(x, vx).read(y, vy).write(x, vx, serial.bump(0));
        CommittedTransaction.Builder b = serial.begin().read(x, vx).read(y, vy).write(y, vy, serial.bump(1));
        long commit = serial.later();
        CommittedTransaction ta = serial.add(a.commit(commit));
        CommittedTransaction tb = serial.add(b.commit(commit));
        serial.run(1_000, 3, 2);

        CheckReport report = checker.check(serial.history());

        assertEquals(101_002, report.transactions());
        assertEquals(List.of(ta.id(), tb.id()), onlyCycle(report).transactionIds().stream().sorted().toList());
    }

    private static CommittedTransaction.Builder tx(long id, long start) {
        return CommittedTransaction.builder(id, start);
    }

    private static Cycle onlyCycle(CheckReport report) {
        assertEquals(1, report.cycleCount(), report::toString);
        return report.cycles().get(0);
    }

    private static Dependency dependencyFrom(Cycle cycle, CommittedTransaction from) {
        return cycle.dependencies().stream().filter(d -> d.from() == from).findFirst().orElseThrow();
    }
}
