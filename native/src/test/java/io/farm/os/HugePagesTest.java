package io.farm.os;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HugePagesTest {
    private static final Path SHM = Path.of("/dev/shm");
    private static final long MIB = 1 << 20;
    private static final long HUGE = 2 * MIB;
    private static final HugePageSettings TYPICAL = new HugePageSettings("madvise", "never", HUGE, 0, HUGE);
    private static final PageRange ALIGNED_8_MIB = new PageRange(0x7f0000000000L, 8 * MIB);
    private static final MountPoint DEV_SHM = new MountPoint("/dev/shm", "tmpfs", "rw,size=24684084k");

    private static MappedArea area(String path, long kernelPageSize, int thpEligible) {
        return new MappedArea(ALIGNED_8_MIB.start(), ALIGNED_8_MIB.start() + ALIGNED_8_MIB.length(), "00:1b", path,
            kernelPageSize, thpEligible);
    }

    @Test
    void adviceOnASmallDevShmMappingSaysWhyHugePagesAreNotInEffect() throws IOException {
        try (SharedMapping mapping = new SharedMapping(SHM, 64 * 1024)) {
            HugePages.Advice advice = HugePages.advise(mapping.memory());
            assertFalse(advice.inEffect());
            assertEquals(Libc.PAGE_SIZE, advice.pageSize());
            assertTrue(advice.reason().contains(mapping.file().toString()), advice.reason());
            assertTrue(advice.reason().contains("smaller than one huge page"), advice.reason());
        }
    }

    @Test
    void adviceOnARegionSizedDevShmMappingAgreesWithTheKernel() throws IOException {
        try (SharedMapping mapping = new SharedMapping(SHM, 8 * MIB)) {
            HugePages.Advice advice = HugePages.advise(mapping.memory());
            boolean eligible = mapping.smapsField("THPeligible:").equals("1");
            assertEquals(eligible, advice.inEffect(), advice.reason());
            assertFalse(advice.reason().isEmpty());
            if (!advice.inEffect()) {
                assertTrue(advice.reason().startsWith("the mapping of " + mapping.file() + " uses "), advice.reason());
            }
        }
    }

    @Test
    void adviceOnAHeapSegmentIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> HugePages.advise(MemorySegment.ofArray(new byte[64])));
    }

    @Test
    void anEligibleMappingIsInEffectWithTheTransparentHugePageSize() {
        HugePages.Advice advice = HugePages.judge(ALIGNED_8_MIB, TYPICAL, area("/dev/shm/r", Libc.PAGE_SIZE, 1),
            new MountPoint("/dev/shm", "tmpfs", "rw,huge=advise"), null, false);
        assertTrue(advice.inEffect());
        assertEquals(HUGE, advice.pageSize());
    }

    @Test
    void aHugetlbfsMappingIsInEffectWithItsPageSize() {
        long gib = 1L << 30;
        HugePages.Advice advice = HugePages.judge(ALIGNED_8_MIB, TYPICAL, area("/mnt/huge/r", gib, 0),
            new MountPoint("/mnt/huge", "hugetlbfs", "rw,pagesize=1024M"), null, false);
        assertTrue(advice.inEffect());
        assertEquals(gib, advice.pageSize());
        assertTrue(advice.reason().contains("1024 MiB hugetlbfs pages"), advice.reason());
    }

    @Test
    void aTmpfsWithoutTheHugeOptionIsExplainedWithTheRemountToRun() {
        HugePages.Advice advice = HugePages.judge(ALIGNED_8_MIB, TYPICAL, area("/dev/shm/r", Libc.PAGE_SIZE, 0), DEV_SHM,
            null, false);
        assertFalse(advice.inEffect());
        assertEquals(Libc.PAGE_SIZE, advice.pageSize());
        assertTrue(advice.reason().contains("huge=never") && advice.reason().contains("mount -o remount,huge=advise /dev/shm"),
            advice.reason());
    }

    @Test
    void shmemEnabledDenyIsExplainedBeforeTheMountOption() {
        HugePageSettings deny = new HugePageSettings("madvise", "deny", HUGE, 0, HUGE);
        HugePages.Advice advice = HugePages.judge(ALIGNED_8_MIB, deny, area("/dev/shm/r", Libc.PAGE_SIZE, 0), DEV_SHM,
            null, false);
        assertFalse(advice.inEffect());
        assertTrue(advice.reason().contains("shmem_enabled is [deny]") && advice.reason().contains(
            "write 'advise' to /sys/kernel/mm/transparent_hugepage/shmem_enabled"), advice.reason());
    }

    @Test
    void theInternalShmemMountIsExplainedByShmemEnabled() {
        HugePages.Advice advice = HugePages.judge(ALIGNED_8_MIB, TYPICAL, area("/memfd:region (deleted)", Libc.PAGE_SIZE, 0),
            null, null, false);
        assertFalse(advice.inEffect());
        assertTrue(advice.reason().contains("internal shmem mount and shmem_enabled is [never]"), advice.reason());
    }

    @Test
    void aFileOnADiskFileSystemIsToldToMoveToTmpfs() {
        HugePages.Advice advice = HugePages.judge(ALIGNED_8_MIB, TYPICAL, area("/data/r", Libc.PAGE_SIZE, 0),
            new MountPoint("/", "ext4", "rw,discard"), null, false);
        assertFalse(advice.inEffect());
        assertTrue(advice.reason().contains("the file is on ext4 (mounted on /)") && advice.reason().contains("tmpfs"),
            advice.reason());
    }

    @Test
    void aMappingSmallerThanAHugePageIsExplainedFirst() {
        PageRange small = new PageRange(ALIGNED_8_MIB.start(), 64 * 1024);
        HugePages.Advice advice = HugePages.judge(small, TYPICAL, area("/dev/shm/r", Libc.PAGE_SIZE, 0), DEV_SHM, null,
            false);
        assertTrue(advice.reason().endsWith("it is 65536 bytes, smaller than one huge page (2 MiB); mappings of at least "
            + "2 MiB can use huge pages"), advice.reason());
    }

    @Test
    void aProcessWithThpDisabledIsExplained() {
        HugePages.Advice advice = HugePages.judge(ALIGNED_8_MIB, TYPICAL, area("/dev/shm/r", Libc.PAGE_SIZE, 0),
            new MountPoint("/dev/shm", "tmpfs", "rw,huge=advise"), null, true);
        assertFalse(advice.inEffect());
        assertTrue(advice.reason().contains("PR_SET_THP_DISABLE"), advice.reason());
    }

    @Test
    void aRefusedAdviceCarriesTheErrnoMessage() {
        NativeCallException refused = new NativeCallException("madvise(0x7f0000000000, 8388608, MADV_HUGEPAGE)",
            Libc.EINVAL, "Invalid argument", null);
        HugePages.Advice advice = HugePages.judge(ALIGNED_8_MIB, TYPICAL, area("/dev/shm/r", Libc.PAGE_SIZE, 0), DEV_SHM,
            refused, false);
        assertFalse(advice.inEffect());
        assertTrue(advice.reason().contains("errno 22 (Invalid argument)"), advice.reason());
    }

    @Test
    void aKernelWithoutTransparentHugePagesSaysSo() {
        HugePageSettings none = new HugePageSettings(HugePageSettings.UNAVAILABLE, HugePageSettings.UNAVAILABLE, 0, 0, 0);
        HugePages.Advice advice = HugePages.judge(ALIGNED_8_MIB, none, area("/dev/shm/r", Libc.PAGE_SIZE,
            MappedArea.NOT_REPORTED), DEV_SHM, null, false);
        assertFalse(advice.inEffect());
        assertTrue(advice.reason().contains("CONFIG_TRANSPARENT_HUGEPAGE"), advice.reason());
    }
}
