package io.farm.os;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Asks the kernel to back a shared file mapping with transparent huge pages
 * ({@code madvise(MADV_HUGEPAGE)}) and reports whether it will, and if not, why and what to
 * change. Huge pages cut TLB misses on large regions; without them a mapping works the same with
 * base pages, so "not available" is an answer here, never an exception.
 *
 * <p>The verdict is the kernel's own: the {@code THPeligible} and {@code KernelPageSize} fields of
 * the mapping in {@code /proc/self/smaps}. The explanation comes from the settings that decide it
 * (see {@link HugePageSettings}): for a file on tmpfs, its mount's {@code huge=} option, overridden
 * by {@code shmem_enabled} {@code deny} or {@code force}; for the internal shmem mount,
 * {@code shmem_enabled}; other file systems do not back writable shared file mappings with
 * transparent huge pages; files on hugetlbfs are backed by huge pages by construction.
 */
public final class HugePages {
    private static final Path SMAPS = Path.of("/proc/self/smaps");
    private static final Path MOUNTINFO = Path.of("/proc/self/mountinfo");
    private static final Path STATUS = Path.of("/proc/self/status");
    private static final String SHMEM_ENABLED = "/sys/kernel/mm/transparent_hugepage/shmem_enabled";

    /**
     * What {@link #advise} found.
     *
     * @param inEffect whether huge pages back the mapping (transparent ones as faults populate it
     *                 and memory allows, or hugetlbfs pages)
     * @param pageSize bytes of the pages that back the mapping: the huge page size when in effect,
     *                 the base page size otherwise
     * @param reason   why, and when not in effect what to change; never empty
     */
    public record Advice(boolean inEffect, long pageSize, String reason) {
    }

    private HugePages() {
    }

    /**
     * Advises the kernel to back {@code mapped}, a shared mapping of a file (or a slice of one), with
     * transparent huge pages, and reports whether huge pages are now in effect for it.
     *
     * @param mapped a mapped segment; its start is rounded down to a page boundary
     * @return the verdict; when huge pages are not in effect, the reason says why and what to change
     * @throws IllegalArgumentException if {@code mapped} is a heap segment
     */
    public static Advice advise(MemorySegment mapped) {
        PageRange pages = PageRange.of(mapped, "madvise(MADV_HUGEPAGE)");
        try {
            HugePageSettings settings = HugePageSettings.read();
            NativeCallException refused = null;
            if (settings.transparentHugePagesBuiltIn()) {
                try {
                    Libc.madvise(pages.start(), pages.length(), Libc.MADV_HUGEPAGE, "MADV_HUGEPAGE");
                } catch (NativeCallException e) {
                    refused = e;
                }
            }
            MappedArea area = MappedArea.containing(SMAPS, pages.start()).orElse(null);
            MountPoint mount = area == null ? null : MountPoint.ofDevice(MOUNTINFO, area.device()).orElse(null);
            return judge(pages, settings, area, mount, refused, thpDisabledForProcess());
        } catch (IOException | UncheckedIOException e) {
            return new Advice(false, Libc.PAGE_SIZE, "cannot tell whether huge pages back the mapping at "
                + Libc.hex(pages.start()) + ": " + e.getMessage() + "; assuming they do not");
        }
    }

    /**
     * The verdict on {@code pages} from the kernel's view of their mapping and the settings that
     * explain it.
     *
     * @param area        the mapping holding the pages in smaps, {@code null} if none
     * @param mount       the file system of the mapped file, {@code null} if not mounted in view
     * @param refused     the failure of {@code madvise}, {@code null} if it succeeded or was not tried
     * @param thpDisabled whether THP is disabled for the process ({@code prctl(PR_SET_THP_DISABLE)})
     */
    static Advice judge(PageRange pages, HugePageSettings settings, MappedArea area, MountPoint mount,
                        NativeCallException refused, boolean thpDisabled) {
        long base = Libc.PAGE_SIZE;
        if (area != null && area.kernelPageSize() > base) {
            return new Advice(true, area.kernelPageSize(), "the mapping of " + nameOf(area) + " is backed by "
                + sizeText(area.kernelPageSize()) + " hugetlbfs pages" + (mount == null ? "" : " (" + mount.mountPoint() + ")"));
        }
        if (!settings.transparentHugePagesBuiltIn()) {
            return new Advice(false, base, "this kernel has no transparent huge pages (no /sys/kernel/mm/transparent_hugepage);"
                + " a kernel built with CONFIG_TRANSPARENT_HUGEPAGE is needed");
        }
        if (refused != null) {
            return new Advice(false, base, "the kernel refused the advice: " + refused.getMessage());
        }
        if (area == null) {
            return new Advice(false, base, "no mapping holds address " + Libc.hex(pages.start())
                + " in /proc/self/smaps; only mapped memory can use huge pages");
        }
        long huge = settings.thpPageSize();
        if (area.thpEligible() == 1) {
            return new Advice(true, huge, "the kernel reports the mapping of " + area.path() + " eligible for transparent "
                + "huge pages: page faults allocate " + sizeText(huge) + " pages while memory allows");
        }
        return new Advice(false, base, "the mapping of " + nameOf(area) + " uses " + sizeText(base) + " pages: "
            + whyNotEligible(pages, settings, area, mount, thpDisabled));
    }

    private static String whyNotEligible(PageRange pages, HugePageSettings settings, MappedArea area, MountPoint mount,
                                         boolean thpDisabled) {
        long huge = settings.thpPageSize();
        if (pages.length() < huge) {
            return "it is " + pages.length() + " bytes, smaller than one huge page (" + sizeText(huge)
                + "); mappings of at least " + sizeText(huge) + " can use huge pages";
        }
        if (thpDisabled) {
            return "transparent huge pages are disabled for this process (prctl PR_SET_THP_DISABLE, "
                + "THP_enabled: 0 in /proc/self/status); start it without that setting";
        }
        boolean tmpfs = mount != null && mount.fsType().equals("tmpfs");
        if ((tmpfs || mount == null) && settings.shmemEnabled().equals("deny")) {
            return "shmem_enabled is [deny], which forbids huge pages on every tmpfs; write 'advise' to "
                + SHMEM_ENABLED + " as root to allow huge pages for region files";
        }
        if (tmpfs && mount.hugeOption().equals("never")) {
            return "the tmpfs mounted on " + mount.mountPoint() + " allows no huge pages (huge=never); as root, remount it "
                + "with 'mount -o remount,huge=advise " + mount.mountPoint() + "' (or write 'force' to " + SHMEM_ENABLED
                + ") to allow huge pages for region files";
        }
        if (mount == null && settings.shmemEnabled().equals("never")) {
            return "it is on the kernel's internal shmem mount and shmem_enabled is [never]; write 'advise' to "
                + SHMEM_ENABLED + " as root to allow huge pages for it";
        }
        if (mount != null && !tmpfs) {
            return "the file is on " + mount.fsType() + " (mounted on " + mount.mountPoint() + "), and Linux backs writable "
                + "shared file mappings with transparent huge pages only on tmpfs; put the region files on a tmpfs "
                + "mounted with huge=advise, such as /dev/shm";
        }
        if (huge > 0 && pages.start() % huge != 0) {
            return "it starts at " + Libc.hex(pages.start()) + ", not on a " + sizeText(huge) + " boundary, so no huge "
                + "page lines up with the file; map it again to get an aligned address";
        }
        if (area.thpEligible() == MappedArea.NOT_REPORTED) {
            return "this kernel does not report THPeligible in /proc/self/smaps, so whether huge pages back the mapping is "
                + "unknown; assuming they do not (" + settings.describe() + ")";
        }
        return "the kernel reports it not eligible for transparent huge pages (THPeligible 0; " + settings.describe()
            + (mount == null ? "" : ", " + mount.fsType() + " on " + mount.mountPoint() + " with " + mount.superOptions())
            + ")";
    }

    /** Whether {@code /proc/self/status} says transparent huge pages are disabled for this process. */
    private static boolean thpDisabledForProcess() throws IOException {
        return Files.readAllLines(STATUS).stream().anyMatch(line -> line.matches("THP_enabled:\\s*0"));
    }

    private static String nameOf(MappedArea area) {
        return area.path().isEmpty() ? "anonymous memory at " + Libc.hex(area.start()) : area.path();
    }

    /** {@code bytes} as {@code 2 MiB} or {@code 4 KiB}, the way page sizes appear in messages. */
    static String sizeText(long bytes) {
        return bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? (bytes >> 20) + " MiB" : (bytes >> 10) + " KiB";
    }
}
