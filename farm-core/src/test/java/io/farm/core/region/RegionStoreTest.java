package io.farm.core.region;

import io.farm.core.addr.RegionId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RegionStoreTest {
    private static final long SIZE = 64 * 1024;

    @TempDir
    Path clusterDir;

    @Test
    void deleteUnmapsOneRegionAndRemovesItsFileWhileTheOthersStay() {
        int doomed = RegionId.of(3, 30);
        int kept = RegionId.of(4, 40);
        try (RegionStore store = new RegionStore(clusterDir, 2, SIZE)) {
            MemorySegment memory = store.create(doomed).memory();
            Region other = store.create(kept);
            other.memory().set(ValueLayout.JAVA_LONG, 0, 42);

            store.delete(doomed);

            assertNull(store.get(doomed));
            assertFalse(Files.exists(RegionStore.fileOf(clusterDir, 2, doomed)));
            assertThrows(IllegalStateException.class, () -> memory.get(ValueLayout.JAVA_LONG, 0), "the mapping is gone");
            assertSame(other, store.get(kept));
            assertEquals(42, other.memory().get(ValueLayout.JAVA_LONG, 0));
            assertEquals(0, store.create(doomed).memory().get(ValueLayout.JAVA_LONG, 0), "the id can be created anew, zero");
        }
    }

    @Test
    void deletingARegionTheStoreDoesNotHoldIsRefused() {
        try (RegionStore store = new RegionStore(clusterDir, 2, SIZE)) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> store.delete(RegionId.of(1, 1)));
            assertTrue(refused.getMessage().contains("node 2 holds no region r1:1"), refused.getMessage());
        }
    }
}
