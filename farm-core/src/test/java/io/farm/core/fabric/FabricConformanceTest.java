package io.farm.core.fabric;

import io.farm.core.addr.RegionId;
import io.farm.core.region.Region;
import io.farm.core.testing.ShmTempDirs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static io.farm.core.fabric.FabricAssertions.expectSuccess;
import static io.farm.core.fabric.FabricAssertions.failedInCompletion;
import static io.farm.core.fabric.FabricAssertions.refused;
import static io.farm.core.fabric.FabricFixture.ISSUER_NODE;
import static io.farm.core.fabric.FabricFixture.REGION;
import static io.farm.core.fabric.FabricFixture.REGION_SIZE;
import static io.farm.core.fabric.FabricFixture.TARGET_NODE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The contract every fabric meets (DESIGN §4, {@link Fabric}, {@link FabricPort}), run on each
 * fabric by a subclass that opens two of its nodes. The target's memory is observed directly
 * through the target's own mapping of its region, never through the fabric under test.
 */
public abstract class FabricConformanceTest {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final int MAX_OPERATION = 64 * 1024;

    @TempDir(factory = ShmTempDirs.class)
    Path clusterDir;

    protected FabricFixture fx;

    /**
     * Opens nodes {@link FabricFixture#ISSUER_NODE} and {@link FabricFixture#TARGET_NODE} of the
     * fabric under test, with cluster directory {@code clusterDir}, as a fixture.
     */
    protected abstract FabricFixture openFixture(Path clusterDir);

    @BeforeEach
    void openFabrics() {
        fx = openFixture(clusterDir);
    }

    @AfterEach
    void closeFabrics() {
        fx.close();
    }

    // ------------------------------------------------------------------ data

    @Test
    void readReturnsWhatWriteWroteAtAnyOffsetAndSize() {
        int[] sizes = {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 63, 64, 65, 127, 128, 129, 1000, 4095, 4096, 4097, 65535, MAX_OPERATION};
        SplittableRandom random = new SplittableRandom(20140402);
        MemorySegment target = fx.targetRegion.memory();
        try (Arena arena = Arena.ofConfined(); FabricPort port = fx.issuer.openPort()) {
            MemorySegment nativeBuffer = arena.allocate(MAX_OPERATION + 64, 64);
            MemorySegment heapBuffer = MemorySegment.ofArray(new byte[MAX_OPERATION + 64]);
            MemorySegment readBack = arena.allocate(MAX_OPERATION + 64, 64);
            int cases = 0;
            for (int size : sizes) {
                long[] offsets = {0, 1, 7, 8, 63, 64, 4093, REGION_SIZE - size, random.nextLong(REGION_SIZE - size + 1)};
                for (long offset : offsets) {
                    cases++;
                    MemorySegment src = cases % 3 == 0 ? heapBuffer : nativeBuffer;
                    int srcOffset = cases % 17;
                    fillRandom(src, srcOffset, size, random);
                    fillAround(target, offset, size, (byte) 0x5A);

                    expectSuccess(port, c -> port.write(fx.targetCapability, offset, src, srcOffset, size, c));
                    assertEquals(-1, MemorySegment.mismatch(src, srcOffset, srcOffset + size, target, offset, offset + size),
                        () -> "the target does not hold the " + size + " bytes written at offset " + offset);
                    assertAroundIs(target, offset, size, (byte) 0x5A);

                    int dstOffset = cases % 13;
                    MemorySegment into = cases % 2 == 0 ? readBack : heapBuffer;
                    // Every byte differs from the target's until the read lands.
                    for (int i = 0; i < size; i++) {
                        into.set(ValueLayout.JAVA_BYTE, dstOffset + i, (byte) ~target.get(ValueLayout.JAVA_BYTE, offset + i));
                    }
                    expectSuccess(port, c -> port.read(fx.targetCapability, offset, size, into, dstOffset, c));
                    assertEquals(-1, MemorySegment.mismatch(target, offset, offset + size, into, dstOffset, dstOffset + size),
                        () -> "the read of " + size + " bytes at offset " + offset + " does not return the target's bytes");
                }
            }
        }
    }

    @Test
    @Timeout(120)
    void whenTheLastWordOfAWriteIsVisibleEveryEarlierByteIsToo() throws InterruptedException {
        long end = 256 * 1024;
        int[] sizes = {8, 9, 16, 24, 63, 64, 72, 100, 1000, 4096, 4104, MAX_OPERATION};
        int iterations = 3000;
        MemorySegment target = fx.targetRegion.memory();
        AtomicLong acknowledged = new AtomicLong();
        AtomicReference<String> violation = new AtomicReference<>();
        AtomicBoolean stop = new AtomicBoolean();
        Thread observer = Thread.ofPlatform().name("target-observer").start(() -> {
            for (long v = 1; v <= iterations; v++) {
                int size = sizes[(int) (v % sizes.length)];
                for (int spins = 1; (long) LONG.getAcquire(target, end - Long.BYTES) != v; spins++) {
                    if (stop.get()) {
                        return;
                    }
                    if ((spins & 0xFFF) == 0) {
                        Thread.yield();
                    }
                    Thread.onSpinWait();
                }
                // Backwards from the last word: the bytes written just before it are checked first.
                for (int j = size - Long.BYTES - 1; j >= 0; j--) {
                    byte seen = target.get(ValueLayout.JAVA_BYTE, end - size + j);
                    if (seen != pattern(v, j)) {
                        violation.compareAndSet(null, "write " + v + " of " + size + " bytes: its last word was visible but byte "
                            + j + " was " + seen + ", expected " + pattern(v, j));
                        break;
                    }
                }
                acknowledged.set(v);
            }
        });
        try (Arena arena = Arena.ofConfined(); FabricPort port = fx.issuer.openPort()) {
            MemorySegment zeros = arena.allocate(MAX_OPERATION);
            MemorySegment src = arena.allocate(MAX_OPERATION);
            for (long v = 1; v <= iterations && violation.get() == null; v++) {
                int size = sizes[(int) (v % sizes.length)];
                // Zero first: a byte of this write that is not yet visible reads 0, which no pattern byte is.
                expectSuccess(port, c -> port.write(fx.targetCapability, end - size, zeros, 0, size, c));
                for (int j = 0; j < size - Long.BYTES; j++) {
                    src.set(ValueLayout.JAVA_BYTE, j, pattern(v, j));
                }
                src.set(ValueLayout.JAVA_LONG_UNALIGNED, size - Long.BYTES, v);
                expectSuccess(port, c -> port.write(fx.targetCapability, end - size, src, 0, size, c));
                while (acknowledged.get() != v && violation.get() == null) {
                    if (!observer.isAlive()) {
                        fail("the observer stopped before acknowledging write " + v);
                    }
                    Thread.yield();
                }
            }
        } finally {
            stop.set(true);
            observer.join();
        }
        assertNull(violation.get());
        assertEquals(iterations, acknowledged.get());
    }

    @Test
    @Timeout(120)
    void readsNeverReturnATornLine() throws InterruptedException {
        List<LineVersionObject> objects = List.of(
            new LineVersionObject(8192, 1), new LineVersionObject(12288, 2), new LineVersionObject(16384, 32));
        long minimumLines = 200_000;
        MemorySegment target = fx.targetRegion.memory();
        objects.forEach(object -> object.write(target, 1));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong versionsWritten = new AtomicLong(1);
        Thread writer = Thread.ofPlatform().name("target-line-writer").start(() -> {
            long version = 1;
            while (!stop.get()) {
                version = LineVersionObject.writeRound(target, objects, version);
                versionsWritten.lazySet(version);
            }
        });
        List<LineVersionObject.Tally> tallies;
        try (FabricPort port = fx.issuer.openPort()) {
            tallies = LineVersionObject.readUntilConfirmed(port, fx.targetCapability, objects, minimumLines, 1000);
        } finally {
            stop.set(true);
            writer.join();
        }
        System.out.println(fx.issuer.kind() + " fabric, writer thread (" + versionsWritten.get() + " versions): " + tallies);
        LineVersionObject.assertNoTornLine(tallies, minimumLines);
    }

    // ------------------------------------------------------------------ refusals

    @Test
    void aForgedKeyIsRefusedAndWritesNothing() {
        Capability forged = new Capability(TARGET_NODE, REGION, fx.targetCapability.key() + 1, REGION_SIZE);
        byte[] before = scribbleOverTarget();
        try (Arena arena = Arena.ofConfined(); FabricPort port = fx.issuer.openPort()) {
            MemorySegment src = filled(arena, 4096, (byte) 0xEE);
            InvalidCapabilityException e = refused(InvalidCapabilityException.class, port,
                c -> port.write(forged, 0, src, 0, 4096, c));
            assertTrue(e.getMessage().contains(forged.toString()), e.getMessage());
            refused(InvalidCapabilityException.class, port, c -> port.read(forged, 0, 4096, src, 0, c));
        }
        assertTargetIs(before);
    }

    @Test
    void theCapabilityOfAnotherRegionIsRefused() {
        int otherRegion = RegionId.of(0, 2);
        fx.target.register(fx.targetStore.create(otherRegion));
        Capability other = fx.issuer.capability(TARGET_NODE, otherRegion);
        byte[] before = scribbleOverTarget();
        try (Arena arena = Arena.ofConfined(); FabricPort port = fx.issuer.openPort()) {
            MemorySegment src = filled(arena, 64, (byte) 0xEE);
            Capability otherKey = new Capability(TARGET_NODE, REGION, other.key(), REGION_SIZE);
            Capability otherId = new Capability(TARGET_NODE, otherRegion, fx.targetCapability.key(), REGION_SIZE);
            Capability otherNode = new Capability(ISSUER_NODE, REGION, fx.targetCapability.key(), REGION_SIZE);
            Capability otherSize = new Capability(TARGET_NODE, REGION, fx.targetCapability.key(), REGION_SIZE / 2);
            for (Capability wrong : List.of(otherKey, otherId, otherNode, otherSize)) {
                InvalidCapabilityException e = refused(InvalidCapabilityException.class, port,
                    c -> port.write(wrong, 0, src, 0, 64, c));
                assertTrue(e.getMessage().contains(wrong.toString()), e.getMessage());
            }
        }
        assertTargetIs(before);
    }

    @Test
    void aDeregisteredRegionIsRefusedAndItsReRegistrationGetsANewKey() {
        byte[] before = scribbleOverTarget();
        fx.target.deregister(REGION);
        try (Arena arena = Arena.ofConfined(); FabricPort port = fx.issuer.openPort()) {
            MemorySegment src = filled(arena, 64, (byte) 0xEE);
            UnregisteredRegionException gone = refused(UnregisteredRegionException.class, port,
                c -> port.write(fx.targetCapability, 0, src, 0, 64, c));
            assertTrue(gone.getMessage().contains("node " + TARGET_NODE + " has no region " + RegionId.toString(REGION) + " registered"),
                gone.getMessage());
            assertThrows(UnregisteredRegionException.class, () -> fx.issuer.capability(TARGET_NODE, REGION));
            assertTargetIs(before);

            Capability again = fx.target.register(fx.targetRegion);
            assertNotEquals(fx.targetCapability.key(), again.key());
            assertEquals(again, fx.issuer.capability(TARGET_NODE, REGION));
            InvalidCapabilityException stale = refused(InvalidCapabilityException.class, port,
                c -> port.write(fx.targetCapability, 0, src, 0, 64, c));
            assertTrue(stale.getMessage().contains(fx.targetCapability.toString()), stale.getMessage());
            assertTargetIs(before);

            expectSuccess(port, c -> port.write(again, 0, src, 0, 64, c));
            assertEquals(-1, MemorySegment.mismatch(src, 0, 64, fx.targetRegion.memory(), 0, 64));
        }
    }

    @Test
    void operationsOutsideTheRegionAreRefused() {
        byte[] before = scribbleOverTarget();
        Capability cap = fx.targetCapability;
        long[][] offsetAndLength = {
            {-1, 8}, {Long.MIN_VALUE, 8}, {0, -1}, {REGION_SIZE, 1}, {REGION_SIZE - 8, 16}, {REGION_SIZE + 1, 0},
            {Long.MAX_VALUE, 16}, {Long.MAX_VALUE - 4, 8}, {8, Integer.MIN_VALUE}};
        try (Arena arena = Arena.ofConfined(); FabricPort port = fx.issuer.openPort()) {
            MemorySegment buffer = filled(arena, 64, (byte) 0xEE);
            for (long[] bad : offsetAndLength) {
                long offset = bad[0];
                int length = (int) bad[1];
                OutOfRangeException w = refused(OutOfRangeException.class, port, c -> port.write(cap, offset, buffer, 0, length, c));
                assertTrue(w.getMessage().contains("accepted: 0 <= offset, offset + length <= " + REGION_SIZE), w.getMessage());
                refused(OutOfRangeException.class, port, c -> port.read(cap, offset, length, buffer, 0, c));
            }
        }
        assertTargetIs(before);
    }

    @Test
    void aLocalBufferTooSmallIsRefused() {
        byte[] before = scribbleOverTarget();
        try (Arena arena = Arena.ofConfined(); FabricPort port = fx.issuer.openPort()) {
            MemorySegment small = filled(arena, 64, (byte) 0xEE);
            long[][] localOffsetAndLength = {{0, 65}, {1, 64}, {-1, 8}, {64, 1}, {Long.MAX_VALUE, 8}};
            for (long[] bad : localOffsetAndLength) {
                long localOffset = bad[0];
                int length = (int) bad[1];
                OutOfRangeException w = refused(OutOfRangeException.class, port,
                    c -> port.write(fx.targetCapability, 0, small, localOffset, length, c));
                assertTrue(w.getMessage().contains("local buffer of 64 bytes"), w.getMessage());
                refused(OutOfRangeException.class, port, c -> port.read(fx.targetCapability, 0, length, small, localOffset, c));
            }
        }
        assertTargetIs(before);
    }

    @Test
    void anUnregisteredRegionHasNoCapabilityAndIsRefused() {
        int never = RegionId.of(3, 77);
        UnregisteredRegionException e = assertThrows(UnregisteredRegionException.class,
            () -> fx.issuer.capability(TARGET_NODE, never));
        assertTrue(e.getMessage().contains(RegionId.toString(never)), e.getMessage());
        byte[] before = scribbleOverTarget();
        Capability madeUp = new Capability(TARGET_NODE, never, fx.targetCapability.key(), REGION_SIZE);
        try (Arena arena = Arena.ofConfined(); FabricPort port = fx.issuer.openPort()) {
            MemorySegment src = filled(arena, 64, (byte) 0xEE);
            UnregisteredRegionException w = refused(UnregisteredRegionException.class, port,
                c -> port.write(madeUp, 0, src, 0, 64, c));
            assertTrue(w.getMessage().contains(madeUp.toString()), w.getMessage());
        }
        assertTargetIs(before);
    }

    @Test
    void registrationsAreUniquePerRegion() {
        IllegalStateException twice = assertThrows(IllegalStateException.class, () -> fx.target.register(fx.targetRegion));
        assertTrue(twice.getMessage().contains(RegionId.toString(REGION)), twice.getMessage());
        int never = RegionId.of(3, 77);
        UnregisteredRegionException e = assertThrows(UnregisteredRegionException.class, () -> fx.target.deregister(never));
        assertTrue(e.getMessage().contains(RegionId.toString(never)), e.getMessage());
        assertEquals(fx.targetCapability, fx.issuer.capability(TARGET_NODE, REGION));
    }

    @Test
    void operationsToAStoppedPeerFailThroughTheirCompletion() {
        byte[] before = scribbleOverTarget();
        assertTrue(fx.issuer.isReachable(TARGET_NODE));
        fx.target.close();
        assertFalse(fx.issuer.isReachable(TARGET_NODE));
        PeerUnreachableException noCapability = assertThrows(PeerUnreachableException.class,
            () -> fx.issuer.capability(TARGET_NODE, REGION));
        assertTrue(noCapability.getMessage().contains("node " + TARGET_NODE), noCapability.getMessage());
        FabricStats stats = fx.issuer.stats();
        try (Arena arena = Arena.ofConfined(); FabricPort port = fx.issuer.openPort()) {
            MemorySegment src = filled(arena, 4096, (byte) 0xEE);
            PeerUnreachableException w = failedInCompletion(port, c -> port.write(fx.targetCapability, 0, src, 0, 4096, c));
            assertTrue(w.getMessage().contains("node " + TARGET_NODE), w.getMessage());
            failedInCompletion(port, c -> port.read(fx.targetCapability, 0, 4096, src, 0, c));
        }
        assertTargetIs(before);
        assertEquals(stats, fx.issuer.stats(), "failed operations are not counted");
    }

    @Test
    void anUnknownNodeIsUnreachable() {
        int unknown = 7;
        assertFalse(fx.issuer.isReachable(unknown));
        PeerUnreachableException e = assertThrows(PeerUnreachableException.class, () -> fx.issuer.capability(unknown, REGION));
        assertTrue(e.getMessage().contains("node " + unknown), e.getMessage());
        Capability madeUp = new Capability(unknown, REGION, fx.targetCapability.key(), REGION_SIZE);
        try (Arena arena = Arena.ofConfined(); FabricPort port = fx.issuer.openPort()) {
            MemorySegment src = filled(arena, 64, (byte) 0xEE);
            failedInCompletion(port, c -> port.write(madeUp, 0, src, 0, 64, c));
        }
    }

    @Test
    void portsOfAClosedFabricRefuseOperations() {
        byte[] before = scribbleOverTarget();
        try (Arena arena = Arena.ofConfined(); FabricPort port = fx.issuer.openPort()) {
            MemorySegment src = filled(arena, 64, (byte) 0xEE);
            fx.issuer.close();
            IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> port.write(fx.targetCapability, 0, src, 0, 64, ignored -> fail("completed")));
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
            assertEquals(0, port.outstanding());
            assertThrows(IllegalStateException.class, fx.issuer::openPort);
        }
        assertTargetIs(before);
    }

    // ------------------------------------------------------------------ accounting

    @Test
    void statsCountEveryOperationAndByteByKind() {
        assertEquals(FabricStats.ZERO, fx.issuer.stats());
        try (Arena arena = Arena.ofConfined(); FabricPort first = fx.issuer.openPort()) {
            MemorySegment buffer = filled(arena, MAX_OPERATION, (byte) 1);
            for (int size : new int[] {1, 100, 4096}) {
                expectSuccess(first, c -> first.write(fx.targetCapability, 512, buffer, 0, size, c));
            }
            for (int size : new int[] {64, MAX_OPERATION}) {
                expectSuccess(first, c -> first.read(fx.targetCapability, 0, size, buffer, 0, c));
            }
            try (FabricPort second = fx.issuer.openPort()) {
                expectSuccess(second, c -> second.write(fx.targetCapability, 3, buffer, 0, 10, c));
                expectSuccess(second, c -> second.read(fx.targetCapability, 5, 7, buffer, 0, c));
                assertEquals(new FabricStats(1, 7, 1, 10, 0, 0), second.counters().snapshot());
            }
            Capability forged = new Capability(TARGET_NODE, REGION, fx.targetCapability.key() ^ 1, REGION_SIZE);
            refused(InvalidCapabilityException.class, first, c -> first.write(forged, 0, buffer, 0, 8, c));
            refused(OutOfRangeException.class, first, c -> first.read(fx.targetCapability, REGION_SIZE, 8, buffer, 0, c));
        }
        assertEquals(new FabricStats(3, 64 + MAX_OPERATION + 7, 4, 1 + 100 + 4096 + 10, 0, 0), fx.issuer.stats(),
            "the counts of every port, closed ones included, and nothing for refused operations");
        assertEquals(FabricStats.ZERO, fx.target.stats(), "one-sided operations count at the issuer only");
    }

    // ------------------------------------------------------------------ completions and threads

    @Test
    void completionsRunOnlyInPollOnTheIssuingThreadInOrder() {
        List<String> events = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        try (Arena arena = Arena.ofConfined(); FabricPort port = fx.issuer.openPort()) {
            MemorySegment buffer = filled(arena, 64, (byte) 3);
            port.write(fx.targetCapability, 0, buffer, 0, 64, failure -> record(events, threads, "write", failure));
            assertEquals(List.of(), events, "a completion ran inside write");
            port.read(fx.targetCapability, 0, 64, buffer, 0, failure -> record(events, threads, "read", failure));
            assertEquals(List.of(), events, "a completion ran inside read");
            Capability unknownNode = new Capability(9, REGION, 1, REGION_SIZE);
            port.write(unknownNode, 0, buffer, 0, 8, failure -> record(events, threads, "failed", failure));
            assertEquals(List.of(), events, "a failure was delivered inside write");
            assertEquals(3, port.outstanding());

            assertEquals(2, port.poll(2));
            assertEquals(List.of("write ok", "read ok"), events);
            assertEquals(1, port.outstanding());
            assertEquals(1, port.poll(10));
            assertEquals(List.of("write ok", "read ok", "failed PeerUnreachableException"), events);
            assertEquals(0, port.poll(10));
            assertEquals(0, port.outstanding());
            for (Thread thread : threads) {
                assertSame(Thread.currentThread(), thread);
            }
        }
    }

    @Test
    void aPortUsedFromAnotherThreadThrows() throws InterruptedException {
        byte[] before = scribbleOverTarget();
        try (Arena arena = Arena.ofShared(); FabricPort port = fx.issuer.openPort()) {
            MemorySegment buffer = filled(arena, 64, (byte) 0xEE);
            List<Executable> uses = List.of(
                () -> port.write(fx.targetCapability, 0, buffer, 0, 64, failure -> fail("completed")),
                () -> port.read(fx.targetCapability, 0, 64, buffer, 0, failure -> fail("completed")),
                () -> port.poll(1));
            List<Throwable> thrown = new ArrayList<>();
            Thread other = Thread.ofPlatform().name("not-the-port-owner").start(() -> {
                for (Executable use : uses) {
                    thrown.add(assertThrows(IllegalStateException.class, use));
                }
            });
            other.join();
            assertEquals(uses.size(), thrown.size(), "every use from another thread threw IllegalStateException");
            for (Throwable t : thrown) {
                assertTrue(t.getMessage().contains("not-the-port-owner"), t.getMessage());
            }
            assertEquals(0, port.outstanding());
        }
        assertTargetIs(before);
    }

    // ------------------------------------------------------------------ helpers

    private static void record(List<String> events, List<Thread> threads, String what, FabricException failure) {
        events.add(what + " " + (failure == null ? "ok" : failure.getClass().getSimpleName()));
        threads.add(Thread.currentThread());
    }

    /** Fills the target's whole region with random bytes and returns a copy. */
    private byte[] scribbleOverTarget() {
        MemorySegment target = fx.targetRegion.memory();
        fillRandom(target, 0, (int) target.byteSize(), new SplittableRandom(7));
        return target.toArray(ValueLayout.JAVA_BYTE);
    }

    private void assertTargetIs(byte[] expected) {
        Region region = fx.targetRegion;
        long mismatch = MemorySegment.mismatch(MemorySegment.ofArray(expected), 0, expected.length, region.memory(), 0, region.size());
        assertEquals(-1, mismatch, () -> "the target's memory changed at offset " + mismatch);
    }

    private static MemorySegment filled(Arena arena, long size, byte value) {
        return arena.allocate(size, 64).fill(value);
    }

    private static void fillRandom(MemorySegment segment, long offset, int length, SplittableRandom random) {
        for (int i = 0; i < length; i++) {
            segment.set(ValueLayout.JAVA_BYTE, offset + i, (byte) random.nextInt());
        }
    }

    private static void fillAround(MemorySegment target, long offset, int size, byte value) {
        long before = Math.max(0, offset - 16);
        long after = Math.min(target.byteSize(), offset + size + 16);
        target.asSlice(before, offset - before).fill(value);
        target.asSlice(offset + size, after - offset - size).fill(value);
    }

    private static void assertAroundIs(MemorySegment target, long offset, int size, byte value) {
        for (long i = Math.max(0, offset - 16); i < offset; i++) {
            assertEquals(value, target.get(ValueLayout.JAVA_BYTE, i), "byte " + i + " before a write of " + size + " at " + offset);
        }
        for (long i = offset + size; i < Math.min(target.byteSize(), offset + size + 16); i++) {
            assertEquals(value, target.get(ValueLayout.JAVA_BYTE, i), "byte " + i + " after a write of " + size + " at " + offset);
        }
    }

    private static byte pattern(long version, int index) {
        return (byte) (1 + Math.floorMod(version * 31 + index, 255));
    }
}
