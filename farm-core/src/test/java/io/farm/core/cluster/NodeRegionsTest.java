package io.farm.core.cluster;

import io.farm.core.addr.RegionId;
import io.farm.core.fabric.UnregisteredRegionException;
import io.farm.core.msg.MessagingLayout;
import io.farm.core.region.RegionStore;
import io.farm.core.testing.ShmTempDirs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import static io.farm.core.cluster.TestClusters.await;
import static io.farm.core.cluster.TestClusters.config;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The hooks farm's components use: deleting a region, and handlers of system message types. */
class NodeRegionsTest {
    @TempDir(factory = ShmTempDirs.class)
    Path temp;

    @Test
    void aDeletedRegionIsUnregisteredUnmappedAndGoneFromDisk() {
        try (EmbeddedCluster cluster = EmbeddedCluster.start(config("delete", 2, "local", temp.resolve("delete")))) {
            Node node = cluster.node(1);
            int regionId = RegionId.of(5, 55);
            node.createRegion(regionId, TestClusters.REGION_SIZE);
            assertEquals(TestClusters.REGION_SIZE, cluster.node(0).capability(1, regionId).size());

            node.deleteRegion(regionId);

            assertNull(node.region(regionId));
            assertFalse(Files.exists(RegionStore.fileOf(node.config().dataDir(), 1, regionId)));
            assertThrows(UnregisteredRegionException.class, () -> cluster.node(0).fabric().capability(1, regionId));
            IllegalArgumentException again = assertThrows(IllegalArgumentException.class, () -> node.deleteRegion(regionId));
            assertTrue(again.getMessage().contains("node 1 holds no region r5:55"), again.getMessage());
            node.createRegion(regionId, TestClusters.REGION_SIZE);
            assertEquals(TestClusters.REGION_SIZE, node.fabric().capability(1, regionId).size(), "the id can be created again");
            int messaging = MessagingLayout.regionId(1);
            IllegalArgumentException system = assertThrows(IllegalArgumentException.class, () -> node.deleteRegion(messaging));
            assertTrue(system.getMessage().contains("sys1.0 is a system region of node 1"), system.getMessage());
            assertEquals(messaging, node.region(messaging).id());
        }
    }

    @Test
    void systemHandlersTakeSystemTypesOnlyAndOnce() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.start(config("system", 2, "local", temp.resolve("system")))) {
            Node node = cluster.node(1);
            AtomicInteger received = new AtomicInteger();
            int type = Node.SYSTEM_TYPES + 0x40;
            node.registerSystemHandler(type, (worker, sender, t, payload, offset, length) -> received.incrementAndGet());

            for (int refusedType : new int[] {0, Node.SYSTEM_TYPES - 1, 0x10000}) {
                IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> node.registerSystemHandler(refusedType, (worker, sender, t, payload, offset, length) -> {
                    }));
                assertTrue(refused.getMessage().contains("message type " + refusedType + " is not a system type"), refused.getMessage());
            }
            for (int takenType : new int[] {type, Node.PING, Node.PONG}) {
                IllegalStateException taken = assertThrows(IllegalStateException.class,
                    () -> node.registerSystemHandler(takenType, (worker, sender, t, payload, offset, length) -> {
                    }));
                assertTrue(taken.getMessage().contains("has a handler on node 1 already"), taken.getMessage());
            }

            await(cluster.node(0).submit(0, worker -> {
                worker.messenger().send(1, type, MemorySegment.NULL, 0, 0);
                return worker.ping(1);
            }));
            assertEquals(1, received.get());
            assertEquals(0, node.workers().errorCount());
        }
    }
}
