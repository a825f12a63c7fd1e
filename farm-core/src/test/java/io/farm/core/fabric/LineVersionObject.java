package io.farm.core.fabric;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

import static io.farm.core.fabric.FabricAssertions.expectSuccess;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A multi-line object written with the line-version protocol (DESIGN §4.2, §6), for the stress
 * tests of line-consistent reads: every 64-byte line starts with an 8-byte version word, the
 * other seven words of a line are a function of (version, line index, word index). The writer
 * marks every line {@link #BEING_WRITTEN}, fences, writes the data, fences, and sets every
 * line's version with release. A line whose version word is not {@link #BEING_WRITTEN} is torn
 * when its data is not exactly that version's.
 *
 * <p>Small objects find a broken read fastest (a line's "being written" mark and its new data
 * are stored close together); large ones cover long objects. The stress tests use both.
 *
 * @param offset where the object starts in its region, 64-byte aligned
 * @param lines  its number of lines
 */
public record LineVersionObject(long offset, int lines) {
    /** The reserved version word of a line being written. */
    public static final long BEING_WRITTEN = -1L;
    /** Bytes per line. */
    public static final int LINE = DmaEmulation.LINE;

    /** Attempts of {@link #readUntilConfirmed} that must all tear for a torn line to count. */
    public static final int ATTEMPTS = 3;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final int WORDS = LINE / Long.BYTES;

    public LineVersionObject {
        if (offset % LINE != 0 || lines < 1) {
            throw new IllegalArgumentException("an object starts on a line and has lines: offset " + offset + ", lines " + lines);
        }
    }

    /** Its length in bytes. */
    public int length() {
        return lines * LINE;
    }

    /** Writes {@code version} (>= 1) of the object into {@code memory}, following the protocol. */
    public void write(MemorySegment memory, long version) {
        for (int line = 0; line < lines; line++) {
            LONG.setOpaque(memory, offset + (long) line * LINE, BEING_WRITTEN);
        }
        // Every line reads "being written" before any of its data changes.
        VarHandle.storeStoreFence();
        for (int line = 0; line < lines; line++) {
            long base = offset + (long) line * LINE;
            for (int word = 1; word < WORDS; word++) {
                memory.set(ValueLayout.JAVA_LONG, base + (long) word * Long.BYTES, word(version, line, word));
            }
        }
        VarHandle.storeStoreFence();
        for (int line = 0; line < lines; line++) {
            // Release: a reader that sees the new version sees the line's new data.
            LONG.setRelease(memory, offset + (long) line * LINE, version);
        }
    }

    /**
     * One round of the writer of the stress tests: writes new versions of every object, each as
     * often as fits in the time of one write of the longest (a small object more often), and
     * returns the last version written. Versions go up by one per write, from {@code last + 1}.
     */
    public static long writeRound(MemorySegment memory, List<LineVersionObject> objects, long last) {
        int longest = objects.stream().mapToInt(LineVersionObject::lines).max().orElseThrow();
        long version = last;
        for (LineVersionObject object : objects) {
            for (int i = longest / object.lines; i > 0; i--) {
                object.write(memory, ++version);
            }
        }
        return version;
    }

    /** The value of word {@code word} (1..7) of line {@code line} in {@code version}. */
    public static long word(long version, int line, int word) {
        return version * 0x9E37_79B9_7F4A_7C15L ^ (line * 0xBF58_476D_1CE4_E5B9L + word);
    }

    /**
     * {@link #readUntil}, and again, up to {@value #ATTEMPTS} attempts in all, while every attempt
     * found a torn line: the memory of this project's machines occasionally breaks x86 store
     * ordering, which a plain C seqlock shows too (docs/decisions.md, "The machines' memory
     * ordering"). A torn line therefore counts only when every independent attempt tears; a read
     * that really is not line consistent tears in every attempt (a copy without the line checks
     * tears about 1 line in 30). The torn attempts' tallies are printed; the last attempt's are
     * returned for the assertions.
     */
    public static List<Tally> readUntilConfirmed(FabricPort port, Capability capability, List<LineVersionObject> objects,
                                                 long minimumLines, long minimumVersionChanges) {
        List<Tally> tallies = readUntil(port, capability, objects, minimumLines, minimumVersionChanges);
        for (int attempt = 2; attempt <= ATTEMPTS && tallies.stream().anyMatch(t -> t.tornLines() != 0); attempt++) {
            System.out.println("torn line in attempt " + (attempt - 1) + ", reading again to confirm: " + tallies);
            tallies = readUntil(port, capability, objects, minimumLines, minimumVersionChanges);
        }
        return tallies;
    }

    /**
     * Asserts that no tally saw a torn line, then that each checked at least {@code minimumLines}
     * lines (in that order, so a torn line is what a failure reports).
     */
    public static void assertNoTornLine(List<Tally> tallies, long minimumLines) {
        for (Tally tally : tallies) {
            assertEquals(0, tally.tornLines(), tally::toString);
        }
        for (Tally tally : tallies) {
            assertTrue(tally.linesChecked() >= minimumLines, tally::toString);
        }
    }

    /**
     * Reads the objects through {@code port} in turn, each as one read of the whole object, until
     * each has had {@code minimumLines} lines checked and its version changed
     * {@code minimumVersionChanges} times between reads, or a torn line is found; an object that
     * has had its share is no longer read. Returns one tally per object.
     */
    public static List<Tally> readUntil(FabricPort port, Capability capability, List<LineVersionObject> objects,
                                        long minimumLines, long minimumVersionChanges) {
        List<Tally> tallies = new ArrayList<>();
        for (LineVersionObject object : objects) {
            tallies.add(object.new Tally());
        }
        try (Arena arena = Arena.ofConfined()) {
            int longest = objects.stream().mapToInt(LineVersionObject::length).max().orElseThrow();
            MemorySegment copy = arena.allocate(longest, LINE);
            while (tallies.stream().allMatch(t -> t.tornLines() == 0)
                && tallies.stream().anyMatch(t -> t.linesChecked() < minimumLines || t.versionChanges() < minimumVersionChanges)) {
                for (Tally tally : tallies) {
                    if (tally.linesChecked() >= minimumLines && tally.versionChanges() >= minimumVersionChanges) {
                        continue;
                    }
                    LineVersionObject object = tally.object();
                    expectSuccess(port, c -> port.read(capability, object.offset, object.length(), copy, 0, c));
                    tally.check(copy);
                }
            }
        }
        return tallies;
    }

    /** What reads of this object returned. Single threaded. */
    public final class Tally {
        private long reads;
        private long linesChecked;
        private long linesBeingWritten;
        private long tornLines;
        private long readsAcrossVersions;
        private long versionChanges;
        private long lastVersion;
        private String firstTorn;

        /** The object counted. */
        public LineVersionObject object() {
            return LineVersionObject.this;
        }

        /** Checks one copy of the object, at offset 0 of {@code copy}. */
        public void check(MemorySegment copy) {
            reads++;
            long first = 0;
            boolean acrossVersions = false;
            for (int line = 0; line < lines; line++) {
                long base = (long) line * LINE;
                long version = copy.get(ValueLayout.JAVA_LONG, base);
                if (version == BEING_WRITTEN) {
                    linesBeingWritten++;
                    continue;
                }
                linesChecked++;
                if (first == 0) {
                    first = version;
                } else if (version != first) {
                    acrossVersions = true;
                }
                for (int word = 1; word < WORDS; word++) {
                    long actual = copy.get(ValueLayout.JAVA_LONG, base + (long) word * Long.BYTES);
                    if (actual != word(version, line, word)) {
                        tornLines++;
                        if (firstTorn == null) {
                            firstTorn = "read " + reads + ", line " + line + " has version " + version + " but word " + word
                                + " is " + Long.toHexString(actual) + ", expected " + Long.toHexString(word(version, line, word));
                        }
                        break;
                    }
                }
            }
            if (acrossVersions) {
                readsAcrossVersions++;
            }
            if (first != 0 && first != lastVersion) {
                versionChanges++;
                lastVersion = first;
            }
        }

        /** Lines whose data was checked against their version. */
        public long linesChecked() {
            return linesChecked;
        }

        /** Lines whose data was not their version's. */
        public long tornLines() {
            return tornLines;
        }

        /** How often the version of the first checked line differed from the previous read's. */
        public long versionChanges() {
            return versionChanges;
        }

        @Override
        public String toString() {
            return lines + "-line object: " + reads + " reads, " + linesChecked + " lines checked, " + linesBeingWritten
                + " lines being written, " + tornLines + " torn, " + readsAcrossVersions + " reads across versions, "
                + versionChanges + " version changes" + (firstTorn == null ? "" : "; first torn: " + firstTorn);
        }
    }
}
