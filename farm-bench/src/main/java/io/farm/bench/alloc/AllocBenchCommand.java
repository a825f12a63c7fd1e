package io.farm.bench.alloc;

import io.farm.alloc.AllocatorStats;
import io.farm.alloc.BlockAllocator;
import io.farm.alloc.ObjectAddress;
import io.farm.alloc.RegionLayout;
import io.farm.alloc.SizeClasses;
import io.farm.alloc.SlabAllocator;
import io.farm.bench.report.BenchOptions;
import io.farm.bench.report.JsonObject;
import io.farm.core.region.RegionStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;

/**
 * {@code farm bench alloc}: allocate/free throughput of one worker's slab allocator over the
 * node's block allocator and mapped region files, in a steady state of {@code --live} objects of
 * a realistic size mix ({@link SizeMix}): each step frees a random live object and allocates a
 * new one. Also prints the size classes' internal fragmentation, computed exactly.
 */
@Command(name = "alloc", mixinStandardHelpOptions = true,
    description = "Allocate/free throughput per worker for a realistic size mix, and the size classes' fragmentation.")
public final class AllocBenchCommand implements Callable<Integer> {
    @Option(names = "--seconds", defaultValue = "4", description = "seconds measured (default ${DEFAULT-VALUE})")
    double seconds;

    @Option(names = "--live", defaultValue = "100000", description = "live objects in the steady state (default ${DEFAULT-VALUE})")
    int live;

    @Option(names = "--region-size", defaultValue = "268435456",
        description = "size of the regions the allocator gets, a power of two (default ${DEFAULT-VALUE})")
    long regionSize;

    @Mixin
    BenchOptions options;

    @Override
    public Integer call() throws Exception {
        BenchOptions.checkSeconds(seconds);
        BenchOptions.checkRange("--live", live, 1, 10_000_000);
        String name = "bench-alloc-" + ProcessHandle.current().pid();
        Path dir = options.dataDir(name);
        Files.createDirectories(dir);
        try (FileRegionSource regions = new FileRegionSource(dir, regionSize)) {
            OneWorkerEpochs epochs = new OneWorkerEpochs();
            BlockAllocator blocks = new BlockAllocator(new RegionLayout(RegionLayout.DEFAULT_BLOCK_SIZE), regions, epochs, 4);
            SlabAllocator slab = new SlabAllocator(blocks, 0);
            SizeMix sizes = new SizeMix(1);
            SplittableRandom victims = new SplittableRandom(2);
            long[] objects = new long[live];
            for (int i = 0; i < live; i++) {
                objects[i] = allocate(slab, sizes.next());
            }
            System.err.printf(Locale.ROOT, "alloc: %,d live objects of the size mix, %d regions of %,d bytes%n", live,
                regions.regions(), regionSize);
            long allocNanos = 0;
            long freeNanos = 0;
            long steps = 0;
            long deadline = System.nanoTime() + (long) (seconds * 1e9);
            // Timed in batches: reading the clock per operation would cost as much as a slab operation.
            int batch = 256;
            int[] batchSizes = new int[batch];
            int[] batchVictims = new int[batch];
            while (System.nanoTime() < deadline) {
                for (int i = 0; i < batch; i++) {
                    batchSizes[i] = sizes.next();
                    batchVictims[i] = victims.nextInt(live);
                }
                long t0 = System.nanoTime();
                for (int i = 0; i < batch; i++) {
                    int victim = batchVictims[i];
                    // A batch may pick one victim twice: it is freed once.
                    if (objects[victim] != ObjectAddress.NULL) {
                        slab.free(objects[victim]);
                        objects[victim] = ObjectAddress.NULL;
                    }
                }
                long t1 = System.nanoTime();
                for (int i = 0; i < batch; i++) {
                    int victim = batchVictims[i];
                    if (objects[victim] == ObjectAddress.NULL) {
                        objects[victim] = allocate(slab, batchSizes[i]);
                    }
                }
                long t2 = System.nanoTime();
                freeNanos += t1 - t0;
                allocNanos += t2 - t1;
                steps += batch;
            }
            long frees = slab.frees();
            long allocations = slab.allocations();
            SizeClasses.Fragmentation fragmentation = SizeClasses.measure();
            AllocatorStats stats = blocks.stats();
            JsonObject result = new JsonObject()
                .put("benchmark", "alloc")
                .put("live_objects", live)
                .put("seconds", seconds)
                .put("region_size", regionSize)
                .put("alloc_ops_per_s", (allocations - live) * 1e9 / allocNanos)
                .put("free_ops_per_s", frees * 1e9 / freeNanos)
                .put("alloc_ns", (double) allocNanos / (allocations - live))
                .put("free_ns", (double) freeNanos / frees)
                .put("avg_fragmentation", fragmentation.average())
                .put("max_fragmentation", fragmentation.maximum())
                .put("allocations", allocations)
                .put("frees", frees)
                .put("steps", steps)
                .put("regions", stats.regions())
                .put("blocks_in_use", stats.blocksInUse())
                .put("free_blocks", stats.freeBlocks())
                .put("epoch_advances", epochs.advances());
            System.err.printf(Locale.ROOT, "allocate: %,.0f ops/s (%.0f ns), free: %,.0f ops/s (%.0f ns)%n",
                (double) result.get("alloc_ops_per_s"), (double) result.get("alloc_ns"),
                (double) result.get("free_ops_per_s"), (double) result.get("free_ns"));
            System.err.printf(Locale.ROOT, "size classes: %.3f %% average, %.3f %% maximum internal fragmentation%n",
                fragmentation.average() * 100, fragmentation.maximum() * 100);
            System.err.printf(Locale.ROOT, "%d regions, %d blocks in use, %d free blocks%n", stats.regions(),
                stats.blocksInUse(), stats.freeBlocks());
            options.print(result);
            return 0;
        } finally {
            RegionStore.deleteTree(dir);
        }
    }

    /** Allocates on this thread; the region source completes at once, so the stage is done when it returns. */
    private static long allocate(SlabAllocator slab, int size) {
        long address = slab.tryAllocate(size, ObjectAddress.NULL);
        if (address != ObjectAddress.NULL) {
            return address;
        }
        return slab.allocate(size, ObjectAddress.NULL).toCompletableFuture().join();
    }
}
