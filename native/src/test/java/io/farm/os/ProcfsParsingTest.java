package io.farm.os;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcfsParsingTest {
    @Test
    void theMappingOfAFileIsFoundInSmapsWithItsKernelView() throws IOException {
        try (SharedMapping mapping = new SharedMapping(Path.of("/dev/shm"), 64 * 1024)) {
            long middle = mapping.memory().address() + 32 * 1024;
            MappedArea area = MappedArea.containing(Path.of("/proc/self/smaps"), middle).orElseThrow();
            assertEquals(mapping.file().toString(), area.path());
            assertEquals(mapping.memory().address(), area.start());
            assertEquals(mapping.memory().address() + mapping.memory().byteSize(), area.end());
            assertEquals(Libc.PAGE_SIZE, area.kernelPageSize());
            assertEquals(Integer.parseInt(mapping.smapsField("THPeligible:")), area.thpEligible());
        }
    }

    @Test
    void anAddressNoMappingHoldsIsNotFound() throws IOException {
        assertEquals(Optional.empty(), MappedArea.containing(Path.of("/proc/self/smaps"), Libc.PAGE_SIZE));
    }

    @Test
    void theMountOfADeviceIsFoundWithItsEscapedPathAndHugeOption(@TempDir Path directory) throws IOException {
        Path mountinfo = Files.writeString(directory.resolve("mountinfo"), """
            27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
            30 24 0:27 / /dev/shm rw,relatime shared:5 - tmpfs tmpfs rw,size=24684084k
            42 27 0:39 / /srv/farm\\040data rw,relatime - tmpfs tmpfs rw,size=65536k,huge=advise
            """);
        MountPoint farm = MountPoint.ofDevice(mountinfo, "00:27").orElseThrow();
        assertEquals(new MountPoint("/srv/farm data", "tmpfs", "rw,size=65536k,huge=advise"), farm);
        assertEquals("advise", farm.hugeOption());
        MountPoint shm = MountPoint.ofDevice(mountinfo, "00:1b").orElseThrow();
        assertEquals(new MountPoint("/dev/shm", "tmpfs", "rw,size=24684084k"), shm);
        assertEquals("never", shm.hugeOption());
        assertEquals("ext4", MountPoint.ofDevice(mountinfo, "fe:00").orElseThrow().fsType());
        assertTrue(MountPoint.ofDevice(mountinfo, "00:01").isEmpty());
    }
}
