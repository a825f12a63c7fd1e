package io.farm.hashtable;

import io.farm.core.addr.GlobalAddress;
import io.farm.core.addr.RegionId;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChainLinkProperties {
    @Property
    void aStoredLinkReadsBackWithItsIncarnationReduced(@ForAll @IntRange(min = 0, max = 254) int ring,
                                                       @ForAll @IntRange(min = 0, max = (1 << 24) - 1) int position,
                                                       @ForAll @IntRange(min = 0, max = (1 << 25) - 1) int line,
                                                       @ForAll @LongRange(min = 0, max = (1L << 44) - 1) long incarnation,
                                                       @ForAll @IntRange(min = 0, max = 20) int at) {
        int regionId = RegionId.of(ring, position);
        if (regionId == 0) {
            return;
        }
        long address = GlobalAddress.of(regionId, (long) line << 6);
        byte[] object = new byte[at + ChainLink.BYTES + 3];
        ChainLink link = ChainLink.to(address, incarnation);
        link.write(object, at);
        ChainLink read = ChainLink.read(object, at);
        assertEquals(link, read);
        assertEquals(address, read.address());
        assertTrue(read.matches(incarnation));
        assertFalse(read.matches(incarnation + 1));
        ChainLink.clear(object, at);
        assertNull(ChainLink.read(object, at));
    }

    @Test
    void anAddressOffALineIsRefused() {
        long address = GlobalAddress.of(RegionId.of(1, 5), 100);
        assertThrows(IllegalArgumentException.class, () -> ChainLink.to(address, 1).write(new byte[16], 0));
    }

    @Test
    void fillShardsTakesEveryBucketTheShardsAllocationHolds() {
        HashTableConfig filled = HashTableLayout.fillShards(HashTableConfig.of(6, 16, 32, 32, 4, 2000));
        assertTrue(filled.bucketsPerShard() >= 2000, filled::toString);
        HashTableLayout layout = new HashTableLayout(filled);
        int stride = io.farm.core.object.ObjectLayout.storedSize(layout.bucketSize());
        int bytes = stride * (filled.bucketsPerShard() + 1);
        int allocation = io.farm.alloc.SizeClasses.sizeOf(io.farm.alloc.SizeClasses.classOf(bytes));
        assertTrue(allocation - bytes < stride, "less than a bucket left: " + (allocation - bytes));
        assertEquals(HashTableLayout.fillShards(filled), filled);
    }
}
