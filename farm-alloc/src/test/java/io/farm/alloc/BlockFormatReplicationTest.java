package io.farm.alloc;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static io.farm.alloc.TestNode.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A block formatted for another size class is reported whole, so that backups get its new object headers. */
class BlockFormatReplicationTest {
    private record Write(int regionId, int offset, byte[] bytes) {
    }

    @Test
    void aBlockFormattedForAnotherClassIsReportedWholeAsFormatted() {
        try (TestNode node = new TestNode(1, 0)) {
            List<Write> writes = new ArrayList<>();
            node.blocks.blockTableListener((regionId, offset, bytes) ->
                writes.add(new Write(regionId, offset, bytes.toArray(ValueLayout.JAVA_BYTE))));
            long big = node.allocate(MIB);
            node.allocate(MIB);
            node.allocate(MIB);
            node.slab(0).free(big);
            node.epochs.advance();
            int before = writes.size();
            long small = node.slab(0).tryAllocate(64, ObjectAddress.of(ObjectAddress.regionId(big), 3 * MIB + 64));
            int blockOffset = ObjectAddress.offset(big);
            assertEquals(blockOffset, ObjectAddress.offset(small) / MIB * MIB, "the small object is in the freed block");

            List<Write> blockWrites = writes.subList(before, writes.size()).stream()
                .filter(write -> write.offset() >= MIB).toList();
            assertEquals(1, blockWrites.size(), "one whole-block write: " + blockWrites);
            Write block = blockWrites.getFirst();
            assertEquals(ObjectAddress.regionId(big), block.regionId());
            assertEquals(blockOffset, block.offset());
            assertEquals(MIB, block.bytes().length);
            MemorySegment memory = node.blocks.regions().stream()
                .filter(region -> region.regionId() == block.regionId()).findFirst().orElseThrow().memory();
            MemorySegment reported = MemorySegment.ofArray(block.bytes());
            for (int slot = 0; slot < MIB / 64; slot++) {
                long at = (long) slot * 64;
                assertEquals(0, reported.get(ValueLayout.JAVA_LONG_UNALIGNED, at + ObjectHeader.VERSION_OFFSET),
                    "version word of slot " + slot);
                long incarnation = reported.get(ValueLayout.JAVA_LONG_UNALIGNED, at + ObjectHeader.INCARNATION_OFFSET);
                assertTrue(!ObjectHeader.isAllocated(incarnation), "slot " + slot + " formatted free");
                if (slot > 0) {
                    assertEquals(memory.get(ValueLayout.JAVA_LONG_UNALIGNED, blockOffset + at + ObjectHeader.INCARNATION_OFFSET),
                        incarnation, "slot " + slot + " as in the primary's memory");
                }
            }
        }
    }
}
