package io.farm.os;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HugePageSettingsTest {
    @Test
    void theBracketedChoicesAndTheMeminfoPoolAreRead(@TempDir Path directory) throws IOException {
        Path thp = Files.createDirectory(directory.resolve("transparent_hugepage"));
        Files.writeString(thp.resolve("enabled"), "always [madvise] never\n");
        Files.writeString(thp.resolve("shmem_enabled"), "always within_size advise [never] deny force\n");
        Files.writeString(thp.resolve("hpage_pmd_size"), "2097152\n");
        Path meminfo = Files.writeString(directory.resolve("meminfo"), """
            MemTotal:       24684084 kB
            HugePages_Total:      16
            HugePages_Free:       16
            Hugepagesize:       2048 kB
            """);
        HugePageSettings settings = HugePageSettings.read(thp, meminfo);
        assertEquals(new HugePageSettings("madvise", "never", 2 << 20, 16, 2 << 20), settings);
        assertTrue(settings.transparentHugePagesBuiltIn());
        assertEquals("enabled [madvise], shmem_enabled [never], hugetlbfs pool 16 pages of 2 MiB", settings.describe());
    }

    @Test
    void aKernelWithoutTransparentHugePagesReadsAsUnavailable(@TempDir Path directory) throws IOException {
        Path meminfo = Files.writeString(directory.resolve("meminfo"), "MemTotal:       1024 kB\n");
        HugePageSettings settings = HugePageSettings.read(directory.resolve("missing"), meminfo);
        assertEquals(new HugePageSettings(HugePageSettings.UNAVAILABLE, HugePageSettings.UNAVAILABLE, 0, 0, 0), settings);
        assertFalse(settings.transparentHugePagesBuiltIn());
    }

    @Test
    void thisMachinesSettingsAreReadable() {
        HugePageSettings settings = HugePageSettings.read();
        if (settings.transparentHugePagesBuiltIn()) {
            assertTrue(settings.thpPageSize() > Libc.PAGE_SIZE, settings.toString());
            assertFalse(settings.enabled().contains("["), settings.toString());
        }
    }
}
