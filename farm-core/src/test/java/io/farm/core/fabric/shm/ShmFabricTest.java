package io.farm.core.fabric.shm;

import io.farm.core.addr.RegionId;
import io.farm.core.fabric.Capability;
import io.farm.core.fabric.FabricPort;
import io.farm.core.fabric.InvalidCapabilityException;
import io.farm.core.fabric.PeerUnreachableException;
import io.farm.core.region.Region;
import io.farm.core.region.RegionStore;
import io.farm.core.testing.ShmTempDirs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import static io.farm.core.fabric.FabricAssertions.expectSuccess;
import static io.farm.core.fabric.FabricAssertions.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the shm fabric adds to the fabric contract: files, incarnations, keys, one node per process. */
class ShmFabricTest {
    private static final long REGION_SIZE = 64 * 1024;
    private static final int REGION = RegionId.of(0, 1);

    @TempDir(factory = ShmTempDirs.class)
    Path clusterDir;

    @Test
    void registerRefusesARegionThatIsNotInTheNodesDirectory(@TempDir Path elsewhere) {
        try (ShmFabric fabric = ShmFabric.open(clusterDir, 0);
             RegionStore otherNode = new RegionStore(clusterDir, 5, REGION_SIZE);
             RegionStore otherCluster = new RegionStore(elsewhere, 0, REGION_SIZE)) {
            Path expected = RegionStore.fileOf(clusterDir.toAbsolutePath(), 0, REGION);
            for (Region foreign : new Region[] {otherNode.create(REGION), otherCluster.create(REGION)}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> fabric.register(foreign));
                assertTrue(e.getMessage().contains(foreign.file().toString()), e.getMessage());
                assertTrue(e.getMessage().contains(expected.toString()), e.getMessage());
            }
            assertTrue(fabric.isReachable(0));
        }
    }

    @Test
    void aNodeCannotBeOpenedTwiceInOneProcess() {
        try (ShmFabric fabric = ShmFabric.open(clusterDir, 3)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> ShmFabric.open(clusterDir, 3));
            assertTrue(e.getMessage().contains("node 3 is already running"), e.getMessage());
            assertTrue(e.getMessage().contains("this process"), e.getMessage());
            assertTrue(fabric.isReachable(3));
        }
        try (ShmFabric again = ShmFabric.open(clusterDir, 3)) {
            assertTrue(again.isReachable(3));
        }
    }

    @Test
    void openRefusesANegativeNodeId() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ShmFabric.open(clusterDir, -1));
        assertTrue(e.getMessage().contains("node id -1"), e.getMessage());
    }

    @Test
    void aReopenedNodeRefusesCapabilitiesOfItsPreviousIncarnation() {
        try (ShmFabric reader = ShmFabric.open(clusterDir, 0);
             RegionStore store = new RegionStore(clusterDir, 1, REGION_SIZE);
             Arena arena = Arena.ofConfined()) {
            Region region = store.create(REGION);
            ShmFabric first = ShmFabric.open(clusterDir, 1);
            Capability old;
            try {
                first.register(region);
                old = reader.capability(1, REGION);
            } finally {
                first.close();
            }
            assertTrue(Files.exists(region.file()), "closing the fabric keeps the region file");
            assertFalse(reader.isReachable(1));

            try (ShmFabric second = ShmFabric.open(clusterDir, 1); FabricPort port = reader.openPort()) {
                assertNotEquals(first.incarnation(), second.incarnation());
                second.register(region);
                Capability current = reader.capability(1, REGION);
                assertNotEquals(old.key(), current.key());
                MemorySegment src = arena.allocate(64).fill((byte) 9);
                InvalidCapabilityException e = refused(InvalidCapabilityException.class, port,
                    c -> port.write(old, 0, src, 0, 64, c));
                assertTrue(e.getMessage().contains("restarted"), e.getMessage());
                assertEquals(0, region.memory().get(ValueLayout.JAVA_BYTE, 0));
                expectSuccess(port, c -> port.write(current, 0, src, 0, 64, c));
                assertEquals(9, region.memory().get(ValueLayout.JAVA_BYTE, 0));
            }
        }
    }

    @Test
    void keysAreUniquePerRegistrationAndCarryTheIncarnation() {
        try (ShmFabric fabric = ShmFabric.open(clusterDir, 0); RegionStore store = new RegionStore(clusterDir, 0, REGION_SIZE)) {
            Region region = store.create(REGION);
            Set<Long> keys = new HashSet<>();
            for (int i = 0; i < 100; i++) {
                Capability capability = fabric.register(region);
                assertTrue(keys.add(capability.key()), "key " + Long.toHexString(capability.key()) + " issued twice");
                assertEquals(fabric.incarnation() >>> 32, capability.key() >>> 32);
                assertEquals(capability, fabric.capability(0, REGION));
                fabric.deregister(REGION);
            }
        }
    }

    @Test
    void aFullCapabilityTableRefusesRegistrationUntilOneIsWithdrawn() {
        try (ShmFabric fabric = ShmFabric.open(clusterDir, 0); RegionStore store = new RegionStore(clusterDir, 0, 4096)) {
            for (int i = 1; i <= CapabilityTableLayout.CAPACITY; i++) {
                fabric.register(store.create(RegionId.of(0, i)));
            }
            Region oneMore = store.create(RegionId.of(1, 1));
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> fabric.register(oneMore));
            assertTrue(e.getMessage().contains(CapabilityTableLayout.CAPACITY + " regions registered"), e.getMessage());
            fabric.deregister(RegionId.of(0, 7));
            assertEquals(oneMore.size(), fabric.register(oneMore).size());
            assertEquals(RegionId.of(1, 1), fabric.capability(0, RegionId.of(1, 1)).regionId());
        }
    }

    @Test
    void anInvalidCapabilityTableIsReplacedAtOpen() throws IOException {
        Path table = ShmFabric.tableFile(clusterDir, 1);
        Files.createDirectories(table.getParent());
        Files.write(table, new byte[] {'n', 'o', 't', ' ', 'a', ' ', 't', 'a', 'b', 'l', 'e'});
        try (ShmFabric reader = ShmFabric.open(clusterDir, 0)) {
            PeerUnreachableException e = assertThrows(PeerUnreachableException.class, () -> reader.capability(1, REGION));
            assertTrue(e.getMessage().contains("not running"), e.getMessage());
            try (ShmFabric owner = ShmFabric.open(clusterDir, 1); RegionStore store = new RegionStore(clusterDir, 1, REGION_SIZE)) {
                Capability capability = owner.register(store.create(REGION));
                assertEquals(capability, reader.capability(1, REGION));
                assertEquals(CapabilityTableLayout.FILE_LENGTH, Files.size(table));
            }
        }
    }
}
