package io.farm.alloc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ObjectHeaderTest {
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment memory = arena.allocate(4096, 64);

    @AfterEach
    void close() {
        arena.close();
    }

    @Test
    void incarnationWordIsWordOneWithTheAllocatedBitLowest() {
        assertEquals(0, ObjectHeader.VERSION_OFFSET);
        assertEquals(8, ObjectHeader.INCARNATION_OFFSET);
        memory.set(ValueLayout.JAVA_LONG, 128 + 8, 2 * 7 + 1);
        long word = ObjectHeader.incarnationWord(memory, 128);
        assertTrue(ObjectHeader.isAllocated(word));
        assertEquals(7, ObjectHeader.incarnation(word));
    }

    @Test
    void allocateKeepsTheIncarnationAndFreeIncrementsIt() {
        long free = ObjectHeader.incarnationWord(memory, 64);
        assertEquals(0, free);
        ObjectHeader.markAllocated(memory, 64, free);
        long allocated = ObjectHeader.incarnationWord(memory, 64);
        assertTrue(ObjectHeader.isAllocated(allocated));
        assertEquals(0, ObjectHeader.incarnation(allocated));
        assertTrue(ObjectHeader.markFree(memory, 64, allocated));
        long freed = ObjectHeader.incarnationWord(memory, 64);
        assertFalse(ObjectHeader.isAllocated(freed));
        assertEquals(1, ObjectHeader.incarnation(freed));
        ObjectHeader.markAllocated(memory, 64, freed);
        assertEquals(1, ObjectHeader.incarnation(ObjectHeader.incarnationWord(memory, 64)));
    }

    @Test
    void aSecondFreeWithTheSameWordFails() {
        ObjectHeader.markAllocated(memory, 0, 0);
        long allocated = ObjectHeader.incarnationWord(memory, 0);
        assertTrue(ObjectHeader.markFree(memory, 0, allocated));
        assertFalse(ObjectHeader.markFree(memory, 0, allocated));
        assertEquals(1, ObjectHeader.incarnation(ObjectHeader.incarnationWord(memory, 0)));
    }

    @Test
    void formatZeroesTheVersionAndSetsAFreeIncarnation() {
        memory.set(ValueLayout.JAVA_LONG, 192, 0x1234);
        memory.set(ValueLayout.JAVA_LONG, 200, 99);
        memory.set(ValueLayout.JAVA_LONG, 208, 0x5555);
        ObjectHeader.format(memory, 192, 42);
        assertEquals(0, memory.get(ValueLayout.JAVA_LONG, 192));
        assertEquals(ObjectHeader.freeWord(42), memory.get(ValueLayout.JAVA_LONG, 200));
        assertEquals(84, ObjectHeader.freeWord(42));
        assertEquals(0x5555, memory.get(ValueLayout.JAVA_LONG, 208), "the rest of the line is the object layout's");
    }
}
