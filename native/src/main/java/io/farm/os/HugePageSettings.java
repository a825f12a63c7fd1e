package io.farm.os;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * The system's huge page settings, as the kernel shows them:
 * {@code /sys/kernel/mm/transparent_hugepage/{enabled,shmem_enabled,hpage_pmd_size}} for
 * transparent huge pages and {@code /proc/meminfo} for the hugetlbfs pool.
 *
 * <p>{@code enabled} governs anonymous memory. {@code shmem_enabled} governs the kernel's
 * internal shmem mount (memfd, SysV shared memory, shared anonymous mappings), and through its
 * values {@code deny} and {@code force} every tmpfs mount too; otherwise a tmpfs mount such as
 * {@code /dev/shm} follows its own {@code huge=} mount option.
 *
 * @param enabled           the selected value of {@code enabled} ({@code always}, {@code madvise},
 *                          {@code never}), or {@link #UNAVAILABLE}
 * @param shmemEnabled      the selected value of {@code shmem_enabled} ({@code always},
 *                          {@code within_size}, {@code advise}, {@code never}, {@code deny},
 *                          {@code force}), or {@link #UNAVAILABLE}
 * @param thpPageSize       bytes of a transparent huge page ({@code hpage_pmd_size}, else
 *                          {@code Hugepagesize}), 0 when neither is known
 * @param hugetlbPagesTotal huge pages in the hugetlbfs pool ({@code HugePages_Total})
 * @param hugetlbPageSize   bytes of a default hugetlbfs page ({@code Hugepagesize}), 0 when unavailable
 */
public record HugePageSettings(String enabled, String shmemEnabled, long thpPageSize, long hugetlbPagesTotal,
                               long hugetlbPageSize) {
    /** The value of a setting whose file does not exist: the kernel lacks the feature. */
    public static final String UNAVAILABLE = "unavailable";

    private static final Path THP_DIRECTORY = Path.of("/sys/kernel/mm/transparent_hugepage");
    private static final Path MEMINFO = Path.of("/proc/meminfo");

    /**
     * Reads the settings of this machine.
     *
     * @throws UncheckedIOException if a settings file exists but cannot be read
     */
    public static HugePageSettings read() {
        return read(THP_DIRECTORY, MEMINFO);
    }

    /** Reads the settings from a directory laid out like {@code transparent_hugepage} and a meminfo file. */
    static HugePageSettings read(Path thpDirectory, Path meminfo) {
        String enabled = selectedValue(thpDirectory.resolve("enabled"));
        String shmemEnabled = selectedValue(thpDirectory.resolve("shmem_enabled"));
        String pmdSize = contentOrUnavailable(thpDirectory.resolve("hpage_pmd_size")).trim();
        long thpPageSize = pmdSize.equals(UNAVAILABLE) ? 0 : Long.parseLong(pmdSize);
        long hugetlbPagesTotal = 0;
        long hugetlbPageSize = 0;
        for (String line : contentOrUnavailable(meminfo).lines().toList()) {
            List<String> fields = List.of(line.split("\\s+"));
            if (fields.getFirst().equals("HugePages_Total:")) {
                hugetlbPagesTotal = Long.parseLong(fields.get(1));
            } else if (fields.getFirst().equals("Hugepagesize:")) {
                hugetlbPageSize = Long.parseLong(fields.get(1)) * 1024; // reported in kB
            }
        }
        // Kernels before 4.14 lack hpage_pmd_size; there the PMD size is the default hugetlbfs size.
        return new HugePageSettings(enabled, shmemEnabled, thpPageSize == 0 ? hugetlbPageSize : thpPageSize,
            hugetlbPagesTotal, hugetlbPageSize);
    }

    /** Whether the kernel has transparent huge pages at all. */
    public boolean transparentHugePagesBuiltIn() {
        return !enabled.equals(UNAVAILABLE);
    }

    /** A one-line summary, e.g. {@code enabled [madvise], shmem_enabled [never], hugetlbfs pool 0 pages of 2 MiB}. */
    public String describe() {
        return "enabled [" + enabled + "], shmem_enabled [" + shmemEnabled + "], hugetlbfs pool " + hugetlbPagesTotal
            + " pages of " + HugePages.sizeText(hugetlbPageSize);
    }

    /** The value between brackets in a sysfs choice file ({@code always [madvise] never}). */
    private static String selectedValue(Path file) {
        String content = contentOrUnavailable(file).trim();
        int open = content.indexOf('[');
        int close = content.indexOf(']', open + 1);
        return open >= 0 && close > open ? content.substring(open + 1, close) : content;
    }

    private static String contentOrUnavailable(Path file) {
        try {
            return Files.readString(file);
        } catch (NoSuchFileException e) {
            return UNAVAILABLE;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read huge page setting " + file, e);
        }
    }
}
