package io.farm.core.object;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Example;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ObjectLayoutProperties {
    @Property
    void applicationBytesRoundTripThroughTheStoredLayoutWithoutTouchingItsWords(
        @ForAll @IntRange(min = 0, max = 3000) int size, @ForAll long seed) {
        byte[] bytes = new byte[size];
        Random random = new Random(seed);
        random.nextBytes(bytes);
        int storedSize = ObjectLayout.storedSize(size);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment stored = arena.allocate(storedSize + 2L * ObjectLayout.LINE, ObjectLayout.LINE);
            long at = ObjectLayout.LINE;
            byte[] noise = new byte[(int) stored.byteSize()];
            random.nextBytes(noise);
            MemorySegment.copy(noise, 0, stored, ValueLayout.JAVA_BYTE, 0, noise.length);

            ObjectLayout.toStored(MemorySegment.ofArray(bytes), 0, size, stored, at);
            MemorySegment back = arena.allocate(Math.max(1, size));
            ObjectLayout.toApplication(stored, at, back, 0, size);

            assertArrayEquals(bytes, back.asSlice(0, size).toArray(ValueLayout.JAVA_BYTE));
            byte[] after = stored.toArray(ValueLayout.JAVA_BYTE);
            for (int i = 0; i < after.length; i++) {
                if (!isApplicationByte(i - at, size)) {
                    assertEquals(noise[i], after[i], "byte " + i + " is not an application byte and changed");
                }
            }
        }
    }

    /** Whether offset {@code relative} of a stored object holds one of its {@code size} application bytes. */
    private static boolean isApplicationByte(long relative, int size) {
        if (relative < ObjectLayout.HEADER_DATA_OFFSET || relative >= ObjectLayout.storedSize(size)) {
            return false;
        }
        long inLine = relative % ObjectLayout.LINE;
        long index = relative < ObjectLayout.LINE
            ? relative - ObjectLayout.HEADER_DATA_OFFSET
            : inLine < ObjectLayout.LINE_DATA_OFFSET ? -1
            : ObjectLayout.HEADER_DATA + (relative / ObjectLayout.LINE - 1) * ObjectLayout.LINE_DATA
                + inLine - ObjectLayout.LINE_DATA_OFFSET;
        return index >= 0 && index < size;
    }

    @Property
    void theHeapDecodingOfAStoredCopyEqualsTheSegmentOne(@ForAll @IntRange(min = 0, max = 3000) int size,
                                                         @ForAll @IntRange(min = 0, max = 3) int lead, @ForAll long seed) {
        byte[] stored = new byte[lead * ObjectLayout.LINE + ObjectLayout.storedSize(size)];
        new java.util.Random(seed).nextBytes(stored);
        byte[] fromSegment = new byte[size + 5];
        byte[] fromArray = new byte[size + 5];
        ObjectLayout.toApplication(MemorySegment.ofArray(stored), (long) lead * ObjectLayout.LINE,
            MemorySegment.ofArray(fromSegment), 3, size);
        ObjectLayout.toApplication(stored, lead * ObjectLayout.LINE, fromArray, 3, size);
        org.junit.jupiter.api.Assertions.assertArrayEquals(fromSegment, fromArray);
    }

    @Property
    void theLargestApplicationSizeOfAStoredSizeFitsItAndOneMoreByteDoesNot(
        @ForAll @IntRange(min = 1, max = (1 << 14) - 1) int lines) {
        int storedSize = lines * ObjectLayout.LINE;
        int largest = ObjectLayout.largestApplicationSize(storedSize);
        assertEquals(storedSize, ObjectLayout.storedSize(largest));
        assertEquals(storedSize + ObjectLayout.LINE, ObjectLayout.storedSize(largest + 1));
    }

    @Property
    void nextVersionNeverHasTheBeingWrittenLineVersionAndGoesUp(@ForAll("versions") long start) {
        long version = start;
        for (int i = 0; i < 4; i++) {
            long next = ObjectLayout.nextVersion(version);
            assertNotEquals(ObjectLayout.BEING_WRITTEN, ObjectLayout.lineVersion(ObjectLayout.versionWord(next, 0)));
            assertTrue(next > version || version > ObjectLayout.MAX_VERSION - 2 && next <= 1, () -> "after " + start);
            version = next;
        }
    }

    @Provide
    Arbitrary<Long> versions() {
        Arbitrary<Long> belowReserved = Arbitraries.longs().between(0, ObjectLayout.MAX_VERSION >>> 16)
            .flatMap(high -> Arbitraries.longs().between(0xFFFA, 0xFFFE).map(low -> high << 16 | low));
        Arbitrary<Long> valid = Arbitraries.longs().between(0, ObjectLayout.MAX_VERSION)
            .filter(v -> (v & 0xFFFF) != 0xFFFF);
        return Arbitraries.oneOf(belowReserved, valid, Arbitraries.of(0L, ObjectLayout.MAX_VERSION - 1, 0xFFFEL));
    }

    @Example
    void lineVersionsWrapOnlyAfter65535VersionsAndNeverTakeTheReservedValue() {
        for (long start : new long[] {0L, 0xFFF0L, ObjectLayout.MAX_VERSION - 30_000}) {
            long version = start;
            short first = ObjectLayout.lineVersion(ObjectLayout.versionWord(version, ObjectLayout.UNLOCKED));
            boolean[] seen = new boolean[1 << 16];
            for (int i = 0; i < 65_535; i++) {
                short line = ObjectLayout.lineVersion(ObjectLayout.versionWord(version, ObjectLayout.EXCLUSIVE));
                assertNotEquals(ObjectLayout.BEING_WRITTEN, line);
                assertFalse(seen[line & 0xFFFF], "line version " + line + " repeated within 65535 versions");
                seen[line & 0xFFFF] = true;
                version = ObjectLayout.nextVersion(version);
            }
            assertEquals(first, ObjectLayout.lineVersion(ObjectLayout.versionWord(version, ObjectLayout.UNLOCKED)));
        }
    }

    @Property
    void theReaderCheckAcceptsExactlyCopiesUnlockedOrLockedForCommitWithEveryLineAtTheHeadersVersion(
        @ForAll("versions") long version, @ForAll @IntRange(min = 0, max = 3) int lockMode,
        @ForAll @Size(min = 0, max = 8) List<@IntRange(min = 0, max = 3) Integer> lineKinds,
        @ForAll short other) {
        short expected = ObjectLayout.lineVersion(ObjectLayout.versionWord(version, lockMode));
        int storedSize = (1 + lineKinds.size()) * ObjectLayout.LINE;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment copy = arena.allocate(storedSize, ObjectLayout.LINE);
            copy.set(ValueLayout.JAVA_LONG, ObjectLayout.VERSION_OFFSET, ObjectLayout.versionWord(version, lockMode));
            boolean linesMatch = true;
            for (int i = 0; i < lineKinds.size(); i++) {
                short line = switch (lineKinds.get(i)) {
                    case 0, 1 -> expected;
                    case 2 -> ObjectLayout.BEING_WRITTEN;
                    default -> other;
                };
                linesMatch &= line == expected;
                copy.set(ValueLayout.JAVA_SHORT, (long) (i + 1) * ObjectLayout.LINE, line);
            }
            boolean readable = lockMode == ObjectLayout.UNLOCKED || lockMode == ObjectLayout.LOCKED_FOR_COMMIT;
            assertEquals(readable && linesMatch, ObjectLayout.isConsistent(copy, 0, storedSize));
        }
    }

    @Property
    void aCommitWritePublishesTheNewBytesAsAConsistentUnlockedVersion(
        @ForAll @IntRange(min = 0, max = 700) int size, @ForAll("versions") long oldVersion, @ForAll long seed) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        int storedSize = ObjectLayout.storedSize(size);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment region = arena.allocate(storedSize, ObjectLayout.LINE);
            region.set(ValueLayout.JAVA_LONG, 0, ObjectLayout.versionWord(oldVersion, ObjectLayout.EXCLUSIVE));
            region.set(ValueLayout.JAVA_LONG, ObjectLayout.INCARNATION_OFFSET, 7L);
            assertFalse(ObjectLayout.isConsistent(region, 0, storedSize));

            long newVersion = ObjectLayout.nextVersion(oldVersion);
            ObjectLayout.commitWrite(region, 0, storedSize, MemorySegment.ofArray(bytes), 0, size, newVersion);

            assertTrue(ObjectLayout.isConsistent(region, 0, storedSize));
            long word = region.get(ValueLayout.JAVA_LONG, 0);
            assertEquals(newVersion, ObjectLayout.version(word));
            assertEquals(ObjectLayout.UNLOCKED, ObjectLayout.lockMode(word));
            assertEquals(7L, region.get(ValueLayout.JAVA_LONG, ObjectLayout.INCARNATION_OFFSET));
            byte[] back = new byte[size];
            ObjectLayout.toApplication(region, 0, MemorySegment.ofArray(back), 0, size);
            assertArrayEquals(bytes, back);
        }
    }

    @Property
    void versionWordFieldsRoundTrip(@ForAll @LongRange(min = 0, max = Long.MAX_VALUE >>> 1) long version,
                                    @ForAll @IntRange(min = 0, max = 2) int lockMode) {
        long word = ObjectLayout.versionWord(version, lockMode);
        assertEquals(version, ObjectLayout.version(word));
        assertEquals(lockMode, ObjectLayout.lockMode(word));
        assertEquals((short) version, ObjectLayout.lineVersion(word));
    }

    @Example
    void badSizesAndVersionsAreRefusedWithTheAcceptedRange() {
        assertThrows(IllegalArgumentException.class, () -> ObjectLayout.storedSize(-1));
        assertThrows(IllegalArgumentException.class, () -> ObjectLayout.storedSize(ObjectLayout.MAX_APPLICATION_SIZE + 1));
        assertThrows(IllegalArgumentException.class, () -> ObjectLayout.largestApplicationSize(65));
        assertThrows(IllegalArgumentException.class, () -> ObjectLayout.largestApplicationSize(0));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment region = arena.allocate(128, ObjectLayout.LINE);
            MemorySegment app = arena.allocate(200);
            IllegalArgumentException tooBig = assertThrows(IllegalArgumentException.class,
                () -> ObjectLayout.commitWrite(region, 0, 128, app, 0, 111, 1));
            assertTrue(tooBig.getMessage().contains("0..110"), tooBig.getMessage());
            assertThrows(IllegalArgumentException.class,
                () -> ObjectLayout.commitWrite(region, 0, 128, app, 0, 10, 0xFFFF));
            assertThrows(IllegalArgumentException.class,
                () -> ObjectLayout.commitWrite(region, 0, 128, app, 0, 10, -1));
            assertEquals(0L, region.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(0, region.get(ValueLayout.JAVA_SHORT, ObjectLayout.LINE));
        }
    }
}
