package io.farm.bench.fabric;

import io.farm.core.region.RegionFiles;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * The physical limit: random {@code size}-byte copies from a local mapped region of the same
 * size as the remote one, by one thread, with no fabric in between.
 */
final class RawCopies {
    private RawCopies() {
    }

    static PhaseResult run(Path dir, long regionSize, int size, long durationNanos, long seed) throws Exception {
        Path file = Files.createTempFile(dir, "raw-", ".mem");
        Files.delete(file);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment memory = RegionFiles.createAndMap(file, regionSize, arena);
            SplittableRandom fill = new SplittableRandom(seed);
            for (long i = 0; i < regionSize; i += 8) {
                memory.set(ValueLayout.JAVA_LONG, i, fill.nextLong());
            }
            MemorySegment buffer = arena.allocate(Math.max(size, 8), 64);
            SplittableRandom random = new SplittableRandom(seed + 1);
            long span = (regionSize - size) / 64 + 1;
            long operations = 0;
            long start = System.nanoTime();
            long deadline = start + durationNanos;
            long now;
            do {
                for (int i = 0; i < 1024; i++) {
                    MemorySegment.copy(memory, random.nextLong(span) * 64, buffer, 0, size);
                }
                operations += 1024;
                now = System.nanoTime();
            } while (now < deadline);
            return new PhaseResult(operations, now - start, null);
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
