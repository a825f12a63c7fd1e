package io.farm.core.region;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RegionFilesTest {
    private static final long MIB = 1 << 20;

    /** Bytes the file system allocated for {@code file}, from {@code stat}: blocks times block size. */
    private static long allocatedBytes(Path file) throws IOException, InterruptedException {
        Process stat = new ProcessBuilder("stat", "--format=%b %B", file.toString()).redirectErrorStream(true).start();
        String output = new String(stat.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertEquals(0, stat.waitFor(), output);
        String[] fields = output.split(" ");
        return Long.parseLong(fields[0]) * Long.parseLong(fields[1]);
    }

    private static void assertNewRegionIsSparse(Path directory) throws IOException, InterruptedException {
        Path file = directory.resolve("regions/r1");
        long size = 16 * MIB;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = RegionFiles.createAndMap(file, size, arena);
            assertEquals(size, memory.byteSize());
            assertEquals(size, Files.size(file));
            long allocated = allocatedBytes(file);
            assertTrue(allocated < size / 16, "a new " + size + "-byte region file has " + allocated + " bytes allocated");
        }
    }

    @Test
    void aNewRegionFileIsSparseAndHasTheRequestedSize(@TempDir Path directory) throws Exception {
        assertNewRegionIsSparse(directory);
    }

    @Test
    void aNewRegionFileInDevShmIsSparse() throws Exception {
        Path directory = Files.createTempDirectory(Path.of("/dev/shm"), "farm-region-test");
        try {
            assertNewRegionIsSparse(directory);
        } finally {
            try (Stream<Path> files = Files.walk(directory)) {
                for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
    }

    @Test
    void sizesThatAreNotAPowerOfTwoFrom4KiBTo2GiBAreRejectedAndCreateNothing(@TempDir Path directory) {
        Path file = directory.resolve("r");
        for (long bad : new long[] {0, -4096, 2048, 3000, 3 * 4096, 12 * MIB, 1L << 32}) {
            try (Arena arena = Arena.ofConfined()) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> RegionFiles.createAndMap(file, bad, arena));
                assertEquals("region size " + bad + " is not accepted: it must be a power of two from 4096 (4 KiB) to "
                    + "2147483648 (2 GiB)", e.getMessage());
                assertThrows(IllegalArgumentException.class, () -> RegionFiles.mapExisting(file, bad, arena));
            }
            assertFalse(Files.exists(file));
        }
    }

    @Test
    void theSmallestAndLargestSizesAreAccepted() {
        assertEquals(4096, RegionFiles.checkRegionSize(4096));
        assertEquals(1L << 31, RegionFiles.checkRegionSize(1L << 31));
    }

    @Test
    void creatingAnExistingFileFailsNamingItAndLeavesItAlone(@TempDir Path directory) throws IOException {
        Path file = Files.writeString(directory.resolve("r"), "already here");
        try (Arena arena = Arena.ofConfined()) {
            UncheckedIOException e = assertThrows(UncheckedIOException.class,
                () -> RegionFiles.createAndMap(file, 4096, arena));
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        }
        assertEquals("already here", Files.readString(file));
    }

    @Test
    void mappingAMissingFileFailsNamingIt(@TempDir Path directory) {
        Path missing = directory.resolve("missing");
        try (Arena arena = Arena.ofConfined()) {
            UncheckedIOException e = assertThrows(UncheckedIOException.class,
                () -> RegionFiles.mapExisting(missing, 4096, arena));
            assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
        }
        assertFalse(Files.exists(missing));
    }

    @Test
    void mappingAFileOfAnotherSizeFailsNamingItAndBothSizes(@TempDir Path directory) {
        Path file = directory.resolve("r");
        try (Arena arena = Arena.ofConfined()) {
            RegionFiles.createAndMap(file, 8192, arena);
            UncheckedIOException e = assertThrows(UncheckedIOException.class,
                () -> RegionFiles.mapExisting(file, 4096, arena));
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
            assertTrue(e.getCause().getMessage().equals("region file " + file + " has 8192 bytes, expected 4096"),
                e.getCause().getMessage());
        }
    }

    @Test
    void writesThroughOneMappingAreSeenThroughASecondMappingOfTheSameFile(@TempDir Path directory) {
        Path file = directory.resolve("r");
        long size = 64 * 1024;
        try (Arena first = Arena.ofConfined(); Arena second = Arena.ofConfined()) {
            MemorySegment created = RegionFiles.createAndMap(file, size, first);
            MemorySegment mapped = RegionFiles.mapExisting(file, size, second);
            for (long offset = 0; offset < size; offset += 4096 + 8) {
                created.set(JAVA_LONG, offset, offset * 31 + 1);
            }
            for (long offset = 0; offset < size; offset += 4096 + 8) {
                assertEquals(offset * 31 + 1, mapped.get(JAVA_LONG, offset));
            }
            mapped.set(JAVA_LONG, size - 8, 0x0123_4567_89ab_cdefL);
            assertEquals(0x0123_4567_89ab_cdefL, created.get(JAVA_LONG, size - 8));
        }
    }

    @Test
    void regionsAskedForHugePagesWorkAndTheFallbackIsReportedOncePerProcess(@TempDir Path directory) throws Exception {
        // The report is once per process, so it is observed in a process of its own.
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
            ThreeSmallRegionsWithHugePages.class.getName(), directory.toString()).start();
        try {
            String stdout = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the child JVM did not finish");
            assertEquals(0, process.exitValue(), stderr);
            assertEquals("3 regions written and read back", stdout.strip());
            List<String> lines = stderr.lines().filter(line -> line.startsWith("farm:")).toList();
            assertEquals(1, lines.size(), stderr);
            // 64 KiB regions are smaller than any huge page, so huge pages cannot be in effect.
            assertTrue(lines.getFirst().startsWith("farm: region files use 4 KiB pages, not huge pages: the mapping of "
                + directory.resolve("r0")), lines.getFirst());
            assertTrue(lines.getFirst().contains("smaller than one huge page"), lines.getFirst());
        } finally {
            process.destroyForcibly().waitFor();
        }
    }

    /** The child process of {@link #regionsAskedForHugePagesWorkAndTheFallbackIsReportedOncePerProcess}. */
    static final class ThreeSmallRegionsWithHugePages {
        public static void main(String[] args) {
            Path directory = Path.of(args[0]);
            long size = 64 * 1024;
            try (Arena arena = Arena.ofConfined()) {
                for (int i = 0; i < 3; i++) {
                    Path file = directory.resolve("r" + i);
                    RegionFiles.createAndMap(file, size, arena, true).set(JAVA_LONG, size - 8, i);
                    if (RegionFiles.mapExisting(file, size, arena, true).get(JAVA_LONG, size - 8) != i) {
                        throw new AssertionError("region " + file + " lost its write");
                    }
                }
            }
            System.out.println("3 regions written and read back");
        }
    }
}
