package io.farm.alloc;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

import static org.junit.jupiter.api.Assertions.assertTrue;

class SizeClassesProperties {
    @Property
    void classOfIsTheSmallestClassThatFits(@ForAll @IntRange(min = 1, max = 1 << 20) int size) {
        int classIndex = SizeClasses.classOf(size);
        assertTrue(SizeClasses.sizeOf(classIndex) >= size,
            () -> "class " + classIndex + " of " + SizeClasses.sizeOf(classIndex) + " B does not fit " + size + " B");
        assertTrue(classIndex == 0 || SizeClasses.sizeOf(classIndex - 1) < size,
            () -> "smaller class " + (classIndex - 1) + " of " + SizeClasses.sizeOf(classIndex - 1) + " B fits " + size + " B");
    }
}
