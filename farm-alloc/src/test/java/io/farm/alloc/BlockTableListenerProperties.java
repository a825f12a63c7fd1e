package io.farm.alloc;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static io.farm.alloc.TestNode.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a backup receives: the writes a {@link BlockTableListener} is told of, replayed in order
 * onto a zero copy of each region, give exactly the primary's block 0 after every allocation,
 * free and epoch change, through blocks taken free, released, reused by their class and
 * reformatted for another.
 */
class BlockTableListenerProperties {
    private static final int[] SIZES = {MIB, MIB / 2, 64, 4096};

    /** The writes reported so far, replayed onto one zero block 0 per region. */
    private static final class Replica implements BlockTableListener {
        final Arena arena = Arena.ofConfined();
        final Map<Integer, MemorySegment> block0 = new HashMap<>();
        final Thread allocatingThread = Thread.currentThread();
        int writes;
        int formattedBlocks;

        @Override
        public void written(int regionId, int offset, MemorySegment bytes) {
            assertSame(allocatingThread, Thread.currentThread(), "the listener runs on the thread that changed the table");
            assertEquals(0, offset % Long.BYTES, "offset of a reported write is 8-byte aligned");
            assertEquals(0, bytes.byteSize() % Long.BYTES, "length of a reported write is whole words");
            if (offset >= MIB) {
                // A block formatted for another class: the whole block, its object headers formatted.
                assertEquals(0, offset % MIB, "a reported block write starts on a block");
                assertEquals(MIB, bytes.byteSize(), "a reported block write is the whole block");
                formattedBlocks++;
                return;
            }
            assertTrue(offset + bytes.byteSize() <= MIB, "a reported write lies in block 0 or is a whole block");
            MemorySegment copy = block0.computeIfAbsent(regionId, id -> arena.allocate(MIB, 8));
            copy.asSlice(offset, bytes.byteSize()).copyFrom(bytes);
            writes++;
        }

        void assertEqualsPrimary(TestNode node) {
            List<AllocatorRegion> regions = node.blocks.regions();
            assertEquals(regions.stream().map(AllocatorRegion::regionId).collect(Collectors.toSet()), block0.keySet(),
                "regions with reported writes");
            for (AllocatorRegion region : regions) {
                long mismatch = block0.get(region.regionId()).mismatch(region.memory().asSlice(0, MIB));
                assertEquals(-1L, mismatch, "first byte of region " + region.regionId()
                    + "'s block 0 where the replayed writes differ from the primary");
            }
        }
    }

    @Property(tries = 40)
    void replayingTheReportedWritesReproducesBlockZero(
        @ForAll @Size(min = 1, max = 80) List<@IntRange(min = 0, max = 99) Integer> steps) {
        Replica replica = new Replica();
        try (TestNode node = new TestNode(0, 2)) {
            node.blocks.blockTableListener(replica);
            node.slabs.add(new SlabAllocator(node.blocks, 0));
            node.slabs.add(new SlabAllocator(node.blocks, 1));
            List<Long> live = new ArrayList<>();
            for (int step : steps) {
                if (step < 45 || live.isEmpty()) {
                    live.add(node.allocate(step % 2, SIZES[step % SIZES.length], ObjectAddress.NULL));
                } else if (step < 90) {
                    node.slab(step % 2).free(live.remove(step % live.size()));
                } else {
                    node.epochs.advance();
                }
                replica.assertEqualsPrimary(node);
            }
            Statistics.label("blocks awaiting an epoch").collect(node.blocks.stats().blocksAwaitingEpoch() > 0);
        } finally {
            replica.arena.close();
        }
        assertTrue(replica.writes > 0, "writes reported");
    }
}
