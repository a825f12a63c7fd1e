package io.farm.alloc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SizeClassesTest {
    @Test
    void thereAre256ClassesFrom64BytesTo1MiB() {
        assertEquals(256, SizeClasses.count());
        assertEquals(64, SizeClasses.sizeOf(0));
        assertEquals(1 << 20, SizeClasses.sizeOf(255));
    }

    @Test
    void classesAreStrictlyIncreasingMultiplesOf64() {
        for (int i = 0; i < SizeClasses.count(); i++) {
            int size = SizeClasses.sizeOf(i);
            assertEquals(0, size % 64, "class " + i + " is " + size + " bytes");
            if (i > 0) {
                assertTrue(size > SizeClasses.sizeOf(i - 1), "class " + i + " (" + size + ") <= class " + (i - 1));
            }
        }
    }

    @Test
    void fragmentationOverMultiplesOf64IsWithinFarmBounds() {
        SizeClasses.Fragmentation fragmentation = SizeClasses.measure();
        assertTrue(fragmentation.average() <= 0.018, "average fragmentation " + fragmentation.average());
        assertTrue(fragmentation.maximum() <= 0.036, "maximum fragmentation " + fragmentation.maximum());
    }

    @Test
    void measureAgreesWithABruteForceScanOfTheClasses() {
        double sum = 0;
        double maximum = 0;
        for (int size = 64; size <= 1 << 20; size += 64) {
            int classSize = 0;
            for (int i = 0; i < SizeClasses.count() && classSize < size; i++) {
                classSize = SizeClasses.sizeOf(i);
            }
            double waste = (double) (classSize - size) / classSize;
            sum += waste;
            maximum = Math.max(maximum, waste);
        }
        SizeClasses.Fragmentation fragmentation = SizeClasses.measure();
        assertEquals(sum / 16384, fragmentation.average(), 1e-12);
        assertEquals(maximum, fragmentation.maximum(), 0.0);
    }

    @Test
    void exactClassSizesMapToThemselves() {
        for (int i = 0; i < SizeClasses.count(); i++) {
            assertEquals(i, SizeClasses.classOf(SizeClasses.sizeOf(i)));
        }
    }

    @Test
    void smallestAndLargestObjectsFit() {
        assertEquals(0, SizeClasses.classOf(1));
        assertEquals(0, SizeClasses.classOf(64));
        assertEquals(1, SizeClasses.classOf(65));
        assertEquals(255, SizeClasses.classOf(1 << 20));
    }

    @Test
    void sizesOutsideOneByteTo1MiBAreRejected() {
        for (int size : new int[] {0, -1, (1 << 20) + 1, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SizeClasses.classOf(size));
            assertTrue(e.getMessage().contains("1..1048576"), e.getMessage());
            assertTrue(e.getMessage().contains("array of objects"), e.getMessage());
        }
    }

    @Test
    void classIndicesOutsideTheTableAreRejected() {
        for (int classIndex : new int[] {-1, 256}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SizeClasses.sizeOf(classIndex));
            assertTrue(e.getMessage().contains("0..255"), e.getMessage());
        }
    }
}
