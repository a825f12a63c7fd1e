package io.farm.core.fabric;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A multi-line object written with the line-version protocol (DESIGN §4.2, §6), for the tests
 * of line-consistent reads: every 64-byte line starts with an 8-byte version word, the other
 * seven words of a line are a function of (version, line index, word index). The writer marks
 * every line {@link #BEING_WRITTEN}, fences, writes the data, fences, and sets every line's
 * version with release. A line whose version word is not {@link #BEING_WRITTEN} is torn when
 * its data is not exactly that version's.
 */
public final class LineVersionObject {
    /** The reserved version word of a line being written. */
    public static final long BEING_WRITTEN = -1L;
    /** Bytes per line. */
    public static final int LINE = DmaEmulation.LINE;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final int WORDS = LINE / Long.BYTES;

    private LineVersionObject() {
    }

    /** Writes {@code version} (>= 1) of the object of {@code lines} lines at {@code offset} (64-byte aligned). */
    public static void write(MemorySegment memory, long offset, int lines, long version) {
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

    /** The value of word {@code word} (1..7) of line {@code line} in {@code version}. */
    public static long word(long version, int line, int word) {
        return version * 0x9E37_79B9_7F4A_7C15L ^ (line * 0xBF58_476D_1CE4_E5B9L + word);
    }

    /** Counts what reads of the object returned. Single threaded. */
    public static final class Tally {
        private long reads;
        private long linesChecked;
        private long linesBeingWritten;
        private long tornLines;
        private long readsAcrossVersions;
        private long versionChanges;
        private long lastVersion;
        private String firstTorn;

        /** Checks one copy of the object of {@code lines} lines at {@code offset} of {@code copy}. */
        public void check(MemorySegment copy, long offset, int lines) {
            reads++;
            long first = 0;
            boolean acrossVersions = false;
            for (int line = 0; line < lines; line++) {
                long base = offset + (long) line * LINE;
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

        /** Reads checked. */
        public long reads() {
            return reads;
        }

        /** Lines whose data was checked against their version. */
        public long linesChecked() {
            return linesChecked;
        }

        /** Lines skipped because they read "being written". */
        public long linesBeingWritten() {
            return linesBeingWritten;
        }

        /** Lines whose data was not their version's. */
        public long tornLines() {
            return tornLines;
        }

        /** Reads that returned lines of more than one version: they overlapped a write. */
        public long readsAcrossVersions() {
            return readsAcrossVersions;
        }

        /** How often the version of the first checked line differed from the previous read's. */
        public long versionChanges() {
            return versionChanges;
        }

        /** The first torn line seen, or null. */
        public String firstTorn() {
            return firstTorn;
        }

        @Override
        public String toString() {
            return reads + " reads, " + linesChecked + " lines checked, " + linesBeingWritten + " lines being written, "
                + tornLines + " torn, " + readsAcrossVersions + " reads across versions, " + versionChanges + " version changes"
                + (firstTorn == null ? "" : "; first torn: " + firstTorn);
        }
    }
}
