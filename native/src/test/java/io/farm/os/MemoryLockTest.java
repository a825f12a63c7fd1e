package io.farm.os;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class MemoryLockTest {
    private static final Path SHM = Path.of("/dev/shm");
    private static final int CAP_IPC_LOCK = 14;

    private static boolean hasCapIpcLock() throws IOException {
        String capEff = Files.readAllLines(Path.of("/proc/self/status")).stream()
            .filter(line -> line.startsWith("CapEff:")).findFirst().orElseThrow().split("\\s+")[1];
        return (Long.parseUnsignedLong(capEff, 16) & 1L << CAP_IPC_LOCK) != 0;
    }

    @Test
    void lockingASmallMappingLocksEveryPageUntilUnlockedOrNamesTheErrno() throws IOException {
        try (SharedMapping mapping = new SharedMapping(SHM, 64 * 1024)) {
            try {
                MemoryLock.lock(mapping.memory());
            } catch (NativeCallException e) {
                assertTrue(e.getMessage().startsWith("mlock(0x") && e.getMessage().contains("failed: errno "),
                    e.getMessage());
                return;
            }
            assertEquals("64", mapping.smapsField("Locked:"));
            MemoryLock.unlock(mapping.memory());
            assertEquals("0", mapping.smapsField("Locked:"));
        }
    }

    @Test
    void lockingBeyondTheMemlockLimitNamesTheLimit() throws IOException {
        long limit = Libc.softLimit(Libc.RLIMIT_MEMLOCK);
        assumeFalse(hasCapIpcLock(), "the process has CAP_IPC_LOCK: RLIMIT_MEMLOCK does not apply");
        assumeTrue(limit != Libc.RLIM_INFINITY && limit < 1L << 30, "RLIMIT_MEMLOCK is unlimited or above 1 GiB");
        // The kernel checks the limit before populating anything, so the sparse file stays sparse.
        try (SharedMapping mapping = new SharedMapping(SHM, limit + 2 * Libc.PAGE_SIZE)) {
            NativeCallException e = assertThrows(NativeCallException.class, () -> MemoryLock.lock(mapping.memory()));
            assertTrue(e.getMessage().contains("RLIMIT_MEMLOCK") && e.getMessage().contains(limit + " bytes"),
                e.getMessage());
        }
    }

    @Test
    void lockingAHeapSegmentIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> MemoryLock.lock(MemorySegment.ofArray(new long[4])));
        assertTrue(e.getMessage().startsWith("mlock needs native memory"), e.getMessage());
    }
}
