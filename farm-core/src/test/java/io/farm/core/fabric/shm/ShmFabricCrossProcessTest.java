package io.farm.core.fabric.shm;

import io.farm.core.addr.RegionId;
import io.farm.core.fabric.Capability;
import io.farm.core.fabric.FabricPort;
import io.farm.core.fabric.InvalidCapabilityException;
import io.farm.core.fabric.LineVersionObject;
import io.farm.core.fabric.PeerUnreachableException;
import io.farm.core.region.RegionFiles;
import io.farm.core.region.RegionStore;
import io.farm.core.testing.NodeJvm;
import io.farm.core.testing.NodeJvms;
import io.farm.core.testing.ShmTempDirs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.farm.core.fabric.FabricAssertions.complete;
import static io.farm.core.fabric.FabricAssertions.expectSuccess;
import static io.farm.core.fabric.FabricAssertions.failedInCompletion;
import static io.farm.core.fabric.FabricAssertions.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The shm fabric between processes: this JVM runs node {@link #SELF}, node JVMs started by the
 * test run node {@link #PEER}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShmFabricCrossProcessTest {
    private static final int SELF = 0;
    private static final int PEER = 1;
    private static final int REGION = RegionId.of(0, 1);
    private static final long REGION_SIZE = 1 << 20;
    /** How long a node JVM may take to start on a loaded machine: a hang guard, not a timing. */
    private static final Duration START = Duration.ofSeconds(60);
    private static final long AWAIT_NANOS = 30_000_000_000L;

    @RegisterExtension
    final NodeJvms nodes = new NodeJvms();

    @TempDir(factory = ShmTempDirs.class)
    Path clusterDir;

    private ShmFabric fabric;

    @BeforeEach
    void openSelf() {
        fabric = ShmFabric.open(clusterDir, SELF);
    }

    @AfterEach
    void closeSelf() {
        fabric.close();
    }

    @Test
    void readsFromAnotherProcessNeverReturnATornLine() {
        List<LineVersionObject> objects = List.of(
            new LineVersionObject(4096, 1), new LineVersionObject(8192, 2), new LineVersionObject(16384, 32));
        long minimumLines = 200_000;
        List<String> args = new ArrayList<>(List.of(clusterDir.toString(), Integer.toString(PEER), Integer.toString(REGION),
            Long.toString(REGION_SIZE)));
        objects.forEach(object -> args.add(object.offset() + ":" + object.lines()));
        NodeJvm writer = nodes.start("line writer node " + PEER, LineVersionWriterNode.class, args.toArray(String[]::new));
        writer.awaitLine("READY", START);
        Capability capability = fabric.capability(PEER, REGION);
        List<LineVersionObject.Tally> tallies;
        try (Arena arena = Arena.ofConfined(); FabricPort port = fabric.openPort()) {
            tallies = LineVersionObject.readUntilConfirmed(port, capability, objects, minimumLines, 1000);
            MemorySegment stop = arena.allocate(Long.BYTES).fill((byte) 1);
            expectSuccess(port, c -> port.write(capability, LineVersionWriterNode.STOP_OFFSET, stop, 0, Long.BYTES, c));
        }
        assertEquals(0, writer.awaitExit(START), writer.logTail());
        String wrote = writer.awaitLine("WROTE", START);
        System.out.println("shm fabric, writer process (" + wrote + "): " + tallies);
        LineVersionObject.assertNoTornLine(tallies, minimumLines);
    }

    @Test
    void aKilledPeerBecomesUnreachableAndOperationsToItFail() {
        NodeJvm peer = startHolder("create");
        Capability capability = fabric.capability(PEER, REGION);
        try (Arena arena = Arena.ofConfined(); FabricPort port = fabric.openPort()) {
            MemorySegment before = arena.allocate(4096).fill((byte) 0x11);
            MemorySegment after = arena.allocate(4096).fill((byte) 0x22);
            expectSuccess(port, c -> port.write(capability, 0, before, 0, 4096, c));

            peer.kill();
            // Nothing but the monitor tells the port: read until a read fails.
            long deadline = System.nanoTime() + AWAIT_NANOS;
            while (complete(port, c -> port.read(capability, 0, 64, after, 0, c)) == null) {
                assertTrue(System.nanoTime() - deadline < 0, "the death of " + peer + " was not noticed");
                Thread.onSpinWait();
            }
            after.fill((byte) 0x22);
            PeerUnreachableException write = failedInCompletion(port, c -> port.write(capability, 0, after, 0, 4096, c));
            assertTrue(write.getMessage().contains("died"), write.getMessage());
            PeerUnreachableException read = failedInCompletion(port, c -> port.read(capability, 0, 4096, after, 0, c));
            assertTrue(read.getMessage().contains("node " + PEER), read.getMessage());
            assertFalse(fabric.isReachable(PEER));
            PeerUnreachableException fetch = assertThrows(PeerUnreachableException.class, () -> fabric.capability(PEER, REGION));
            assertTrue(fetch.getMessage().contains("died"), fetch.getMessage());

            MemorySegment file = RegionFiles.mapExisting(RegionStore.fileOf(clusterDir, PEER, REGION), REGION_SIZE, arena);
            assertEquals(-1, MemorySegment.mismatch(before, 0, 4096, file, 0, 4096), "the dead node's memory changed");
        }
    }

    @Test
    void aRestartedPeerRefusesCapabilitiesOfItsPreviousIncarnation() {
        NodeJvm first = startHolder("create");
        Capability old = fabric.capability(PEER, REGION);
        try (Arena arena = Arena.ofConfined(); FabricPort port = fabric.openPort()) {
            MemorySegment kept = arena.allocate(256).fill((byte) 0x33);
            MemorySegment refused = arena.allocate(256).fill((byte) 0x44);
            expectSuccess(port, c -> port.write(old, 1024, kept, 0, 256, c));

            first.kill();
            assertFalse(fabric.isReachable(PEER));
            failedInCompletion(port, c -> port.write(old, 1024, refused, 0, 256, c));

            startHolder("recover");
            assertTrue(fabric.isReachable(PEER));
            Capability current = fabric.capability(PEER, REGION);
            assertNotEquals(old.key(), current.key());
            InvalidCapabilityException stale = refused(InvalidCapabilityException.class, port,
                c -> port.write(old, 1024, refused, 0, 256, c));
            assertTrue(stale.getMessage().contains("restarted"), stale.getMessage());
            refused(InvalidCapabilityException.class, port, c -> port.read(old, 1024, 256, refused, 0, c));

            MemorySegment copy = arena.allocate(256);
            expectSuccess(port, c -> port.read(current, 1024, 256, copy, 0, c));
            assertEquals(-1, MemorySegment.mismatch(kept, 0, 256, copy, 0, 256),
                "the region kept what was written before the restart, and nothing of the refused writes");
            expectSuccess(port, c -> port.write(current, 1024, refused, 0, 256, c));
            expectSuccess(port, c -> port.read(current, 1024, 256, copy, 0, c));
            assertEquals(-1, MemorySegment.mismatch(refused, 0, 256, copy, 0, 256));
        }
    }

    @Test
    void oneSidedOperationsNeedNoCpuOfTheTarget() throws IOException, InterruptedException {
        NodeJvm peer = startHolder("create");
        Capability capability = fabric.capability(PEER, REGION);
        signal("-STOP", peer);
        try (Arena arena = Arena.ofConfined(); FabricPort port = fabric.openPort()) {
            MemorySegment data = arena.allocate(8192);
            for (int i = 0; i < 8192; i++) {
                data.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
            }
            expectSuccess(port, c -> port.write(capability, 64, data, 0, 8192, c));
            MemorySegment copy = arena.allocate(8192);
            expectSuccess(port, c -> port.read(capability, 64, 8192, copy, 0, c));
            assertEquals(-1, MemorySegment.mismatch(data, 0, 8192, copy, 0, 8192));
            assertTrue(fabric.isReachable(PEER), "a stopped process is alive: its connection is not broken");
            MemorySegment file = RegionFiles.mapExisting(RegionStore.fileOf(clusterDir, PEER, REGION), REGION_SIZE, arena);
            assertEquals(-1, MemorySegment.mismatch(data, 0, 8192, file, 64, 64 + 8192));
        } finally {
            signal("-CONT", peer);
        }
    }

    @Test
    void aNodeRunByAnotherProcessCannotBeOpenedAgain() {
        NodeJvm peer = startHolder("create");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ShmFabric.open(clusterDir, PEER));
        assertTrue(e.getMessage().contains("node " + PEER + " is already running"), e.getMessage());
        assertTrue(e.getMessage().contains("pid " + peer.pid()), e.getMessage());
        assertTrue(fabric.isReachable(PEER));
    }

    @Test
    void aNodeOfThisProcessStaysLockedForOtherProcessesWhileItsPeersComeAndGo() {
        int other = 2;
        ShmFabric target = ShmFabric.open(clusterDir, PEER);
        try {
            // Fabrics of this process probe node PEER and close: closing a channel of a lock file drops
            // every lock of the process on that file, so none of them may close the owner's.
            for (int i = 0; i < 3; i++) {
                try (ShmFabric peerOfPeer = ShmFabric.open(clusterDir, other)) {
                    assertTrue(peerOfPeer.isReachable(PEER));
                }
                assertTrue(fabric.isReachable(PEER));
            }
            NodeJvm probe = nodes.start("probe node " + other, ReachabilityProbeNode.class, clusterDir.toString(),
                Integer.toString(other), Integer.toString(PEER));
            assertEquals(0, probe.awaitExit(START), probe.logTail());
            assertEquals("REACHABLE true", probe.awaitLine("REACHABLE", START), probe.logTail());
            String open = probe.awaitLine("OPEN", START);
            assertTrue(open.startsWith("OPEN refused: node " + PEER + " is already running"), open);
        } finally {
            target.close();
        }
        assertFalse(fabric.isReachable(PEER));
    }

    private NodeJvm startHolder(String mode) {
        NodeJvm node = nodes.start("node " + PEER + " (" + mode + ")", RegionHolderNode.class, clusterDir.toString(),
            Integer.toString(PEER), Integer.toString(REGION), Long.toString(REGION_SIZE), mode);
        node.awaitLine("READY", START);
        return node;
    }

    private static void signal(String signal, NodeJvm node) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", signal, Long.toString(node.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            fail("kill " + signal + " " + node + " failed with exit code " + kill.exitValue());
        }
    }
}
