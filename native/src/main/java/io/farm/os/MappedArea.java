package io.farm.os;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One mapping of this process as {@code /proc/self/smaps} shows it: the kernel's own view of
 * the page size backing it and of whether transparent huge pages may back it.
 *
 * @param start          first address
 * @param end            address after the last byte
 * @param device         device of the mapped file, {@code major:minor} in hex as smaps prints it
 * @param path           the mapped file, or a pseudo-name such as {@code [heap]}, or empty
 * @param kernelPageSize bytes of the pages backing the mapping (a hugetlbfs page size on hugetlbfs)
 * @param thpEligible    1 if transparent huge pages may back it, 0 if not, {@link #NOT_REPORTED}
 *                       when the kernel does not say (before Linux 5.0)
 */
record MappedArea(long start, long end, String device, String path, long kernelPageSize, int thpEligible) {
    /** {@link #thpEligible()} of a kernel that does not report eligibility. */
    static final int NOT_REPORTED = -1;

    /**
     * The mapping of {@code smaps} (a file in the format of {@code /proc/self/smaps}) that contains
     * {@code address}, or empty if no mapping contains it.
     */
    static Optional<MappedArea> containing(Path smaps, long address) throws IOException {
        try (BufferedReader reader = Files.newBufferedReader(smaps)) {
            MappedArea found = null;
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (isHeader(line)) {
                    if (found != null) {
                        break;
                    }
                    found = parseHeaderIfContains(line, address);
                } else if (found != null) {
                    found = withField(found, line);
                }
            }
            return Optional.ofNullable(found);
        }
    }

    /** Header lines start with the address range in lowercase hex; field lines with a capitalised key. */
    private static boolean isHeader(String line) {
        char first = line.isEmpty() ? ' ' : line.charAt(0);
        return (first >= '0' && first <= '9') || (first >= 'a' && first <= 'f');
    }

    /** Parses {@code start-end perms offset major:minor inode [path]} if the range holds {@code address}. */
    private static MappedArea parseHeaderIfContains(String line, long address) {
        String[] fields = line.split("\\s+", 6);
        int dash = fields[0].indexOf('-');
        long start = Long.parseUnsignedLong(fields[0], 0, dash, 16);
        long end = Long.parseUnsignedLong(fields[0], dash + 1, fields[0].length(), 16);
        if (Long.compareUnsigned(address, start) < 0 || Long.compareUnsigned(address, end) >= 0) {
            return null;
        }
        String path = fields.length == 6 ? fields[5].strip() : "";
        return new MappedArea(start, end, fields[3], path, Libc.PAGE_SIZE, NOT_REPORTED);
    }

    private static MappedArea withField(MappedArea area, String line) {
        String[] fields = line.split("\\s+");
        return switch (fields[0]) {
            case "KernelPageSize:" -> new MappedArea(area.start, area.end, area.device, area.path,
                Long.parseLong(fields[1]) * 1024, area.thpEligible); // reported in kB
            case "THPeligible:" -> new MappedArea(area.start, area.end, area.device, area.path, area.kernelPageSize,
                Integer.parseInt(fields[1]));
            default -> area;
        };
    }
}
