package io.farm.core.tx.history;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SerializabilityCheckerProperties {
    @Property(tries = 200)
    void aSerialExecutionHasNoCycleAndNothingImpossible(
        @ForAll long seed, @ForAll @IntRange(min = 1, max = 20) int objects,
        @ForAll @IntRange(min = 0, max = 200) int count) {
        SerialHistory serial = new SerialHistory(seed, objects).run(count, 4, 3);

        CheckReport strict = SerializabilityChecker.strict(serial.initialVersions()).check(serial.history());

        assertTrue(strict.valid(), strict::toString);
        assertEquals(count, strict.transactions());
    }

    @Property(tries = 100)
    void aLostUpdateIsACycleOfItsTwoWriters(
        @ForAll long seed, @ForAll @IntRange(min = 1, max = 10) int objects,
        @ForAll @IntRange(min = 0, max = 100) int count, @ForAll boolean sameNewVersion) {
        SerialHistory serial = new SerialHistory(seed, objects).run(count, 3, 2);
        long x = serial.address(0);
        long read = serial.currentVersion(0);
        long first = serial.bump(0);
        long second = sameNewVersion ? first : serial.bump(0);
        CommittedTransaction.Builder a = serial.begin().read(x, read).write(x, read, first);
        CommittedTransaction.Builder b = serial.begin().read(x, read).write(x, read, second);
        long commit = serial.later();
        CommittedTransaction ta = serial.add(a.commit(commit));
        CommittedTransaction tb = serial.add(b.commit(commit));

        CheckReport report = SerializabilityChecker.serializable(serial.initialVersions()).check(serial.history());

        assertOneCycleOf(report, ta, tb);
        assertEquals(sameNewVersion ? 1 : 0, report.impossibilities().size(), report::toString);
    }

    @Property(tries = 100)
    void writeSkewIsACycleOfAntiDependencies(
        @ForAll long seed, @ForAll @IntRange(min = 2, max = 10) int objects,
        @ForAll @IntRange(min = 0, max = 100) int count) {
        SerialHistory serial = new SerialHistory(seed, objects).run(count, 3, 2);
        long x = serial.address(0);
        long y = serial.address(1);
        long vx = serial.currentVersion(0);
        long vy = serial.currentVersion(1);
        CommittedTransaction.Builder a = serial.begin().read(x, vx).read(y, vy).write(x, vx, serial.bump(0));
        CommittedTransaction.Builder b = serial.begin().read(x, vx).read(y, vy).write(y, vy, serial.bump(1));
        long commit = serial.later();
        CommittedTransaction ta = serial.add(a.commit(commit));
        CommittedTransaction tb = serial.add(b.commit(commit));

        CheckReport report = SerializabilityChecker.serializable(serial.initialVersions()).check(serial.history());

        assertOneCycleOf(report, ta, tb);
        assertEquals(List.of(DependencyKind.READ_WRITE, DependencyKind.READ_WRITE), report.cycles().get(0).kinds());
        assertTrue(report.impossibilities().isEmpty(), report::toString);
    }

    @Property(tries = 100)
    void aStaleReadAfterALaterCommitIsACycleOnlyForStrictness(
        @ForAll long seed, @ForAll @IntRange(min = 1, max = 10) int objects,
        @ForAll @IntRange(min = 0, max = 100) int count) {
        SerialHistory serial = new SerialHistory(seed, objects).run(count, 3, 2);
        long x = serial.address(0);
        long old = serial.currentVersion(0);
        CommittedTransaction writer = serial.add(serial.begin().write(x, old, serial.bump(0)).commit(serial.later()));
        CommittedTransaction staleReader = serial.add(serial.begin().read(x, old).commit(serial.later()));
        History history = serial.history();

        CheckReport strict = SerializabilityChecker.strict(serial.initialVersions()).check(history);
        CheckReport serializable = SerializabilityChecker.serializable(serial.initialVersions()).check(history);

        assertOneCycleOf(strict, writer, staleReader);
        assertEquals(Set.of(DependencyKind.REAL_TIME, DependencyKind.READ_WRITE), Set.copyOf(strict.cycles().get(0).kinds()));
        assertTrue(serializable.valid(), serializable::toString);
    }

    @Property(tries = 100)
    void aNonRepeatableReadIsACycleWithTheWriterInBetween(
        @ForAll long seed, @ForAll @IntRange(min = 1, max = 10) int objects,
        @ForAll @IntRange(min = 0, max = 100) int count) {
        SerialHistory serial = new SerialHistory(seed, objects).run(count, 3, 2);
        long x = serial.address(0);
        long first = serial.currentVersion(0);
        CommittedTransaction.Builder reader = serial.begin().read(x, first);
        long second = serial.bump(0);
        CommittedTransaction writer = serial.add(serial.begin().write(x, first, second).commit(serial.later()));
        CommittedTransaction rereader = serial.add(reader.read(x, second).commit(serial.later()));

        CheckReport report = SerializabilityChecker.strict(serial.initialVersions()).check(serial.history());

        assertOneCycleOf(report, writer, rereader);
        assertEquals(Set.of(DependencyKind.READ_WRITE, DependencyKind.WRITE_READ), Set.copyOf(report.cycles().get(0).kinds()));
    }

    private static void assertOneCycleOf(CheckReport report, CommittedTransaction a, CommittedTransaction b) {
        assertEquals(1, report.cycleCount(), report::toString);
        Cycle cycle = report.cycles().get(0);
        assertEquals(Set.of(a.id(), b.id()), Set.copyOf(cycle.transactionIds()), report::toString);
        assertEquals(2, cycle.dependencies().size(), report::toString);
        String witness = cycle.toString();
        assertTrue(witness.contains(a.toString()) && witness.contains(b.toString()), witness);
    }
}
