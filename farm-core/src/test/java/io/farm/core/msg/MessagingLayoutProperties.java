package io.farm.core.msg;

import io.farm.core.region.RegionFiles;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MessagingLayoutProperties {
    record Range(String what, long start, long length) {
        long end() {
            return start + length;
        }
    }

    @Provide
    Arbitrary<Integer> capacities() {
        return Arbitraries.integers().between(12, 18).map(bits -> 1 << bits);
    }

    @Property(tries = 300)
    void ringsAndHeadSlotsAreDisjointAndInsideTheRegion(@ForAll @IntRange(min = 1, max = 24) int nodes,
                                                         @ForAll @IntRange(min = 1, max = 8) int threads,
                                                         @ForAll("capacities") int messageCapacity,
                                                         @ForAll("capacities") int logCapacity) {
        MessagingLayout layout = new MessagingLayout(nodes, threads, messageCapacity, logCapacity);
        List<Range> ranges = new ArrayList<>();
        for (RingKind kind : RingKind.values()) {
            for (int node = 0; node < nodes; node++) {
                for (int thread = 0; thread < threads; thread++) {
                    long ring = layout.ringOffset(kind, node, thread);
                    assertEquals(0, ring % MessagingLayout.MIN_RING_CAPACITY, "rings start on a page");
                    ranges.add(new Range(kind + " ring " + node + "." + thread, ring, layout.capacity(kind)));
                    long slot = layout.headSlotOffset(kind, node, thread);
                    assertEquals(0, slot % MessagingLayout.HEAD_SLOT_LENGTH, "a head slot is a cache line");
                    ranges.add(new Range(kind + " head slot " + node + "." + thread, slot, MessagingLayout.HEAD_SLOT_LENGTH));
                }
            }
        }
        ranges.sort(Comparator.comparingLong(Range::start));
        assertTrue(ranges.getFirst().start() >= 0);
        for (int i = 1; i < ranges.size(); i++) {
            Range before = ranges.get(i - 1);
            Range after = ranges.get(i);
            assertTrue(before.end() <= after.start(), before + " overlaps " + after);
        }
        assertEquals(ranges.getLast().end(), layout.usedLength());
        long size = layout.regionSize();
        assertEquals(size, RegionFiles.checkRegionSize(size));
        assertTrue(size >= layout.usedLength() && (size / 2 < layout.usedLength() || size == RegionFiles.MIN_REGION_SIZE),
            "region size " + size + " is the used length " + layout.usedLength() + " rounded up to a power of two");
    }

    @Example
    void capacitiesMustBePowersOfTwoOfAtLeast4KiB() {
        IllegalArgumentException notPowerOfTwo = assertThrows(IllegalArgumentException.class, () -> new MessagingLayout(2, 2, 6000, 4096));
        assertTrue(notPowerOfTwo.getMessage().contains("message ring capacity 6000"), notPowerOfTwo.getMessage());
        assertTrue(notPowerOfTwo.getMessage().contains("power of two from 4096"), notPowerOfTwo.getMessage());
        IllegalArgumentException tooSmall = assertThrows(IllegalArgumentException.class, () -> new MessagingLayout(2, 2, 4096, 2048));
        assertTrue(tooSmall.getMessage().contains("log ring capacity 2048"), tooSmall.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new MessagingLayout(2, 2, -4096, 4096));
        assertThrows(IllegalArgumentException.class, () -> new MessagingLayout(2, 2, 0, 4096));
    }

    @Example
    void nodesAndThreadsMustBeInRange() {
        IllegalArgumentException noNodes = assertThrows(IllegalArgumentException.class, () -> new MessagingLayout(0, 1, 4096, 4096));
        assertTrue(noNodes.getMessage().contains("1.." + MessagingLayout.MAX_NODES), noNodes.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new MessagingLayout(MessagingLayout.MAX_NODES + 1, 1, 4096, 4096));
        IllegalArgumentException noThreads = assertThrows(IllegalArgumentException.class, () -> new MessagingLayout(1, 0, 4096, 4096));
        assertTrue(noThreads.getMessage().contains("1.." + MessagingLayout.MAX_THREADS), noThreads.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new MessagingLayout(1, MessagingLayout.MAX_THREADS + 1, 4096, 4096));
    }

    @Example
    void aLayoutLargerThanTheLargestRegionIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new MessagingLayout(1000, 64, 1 << 16, 1 << 16));
        assertTrue(e.getMessage().contains("more than the largest region"), e.getMessage());
    }

    @Example
    void ringsOfNodesOrThreadsOutsideTheClusterDoNotExist() {
        MessagingLayout layout = new MessagingLayout(3, 2, 4096, 8192);
        assertThrows(IllegalArgumentException.class, () -> layout.ringOffset(RingKind.MESSAGE, 3, 0));
        assertThrows(IllegalArgumentException.class, () -> layout.ringOffset(RingKind.LOG, 0, 2));
        assertThrows(IllegalArgumentException.class, () -> layout.headSlotOffset(RingKind.LOG, -1, 0));
    }
}
