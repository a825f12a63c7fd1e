package io.farm.alloc;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.farm.alloc.TestNode.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Worker threads, each with its own slab allocator, allocate and free at once, hand objects to
 * each other to free (frees across slabs) while the epochs advance; afterwards the allocators'
 * state equals memory and every object handed out was unique while it lived.
 */
class AllocatorConcurrencyTest {
    private static final int WORKERS = 3;
    private static final int OPERATIONS = 10_000;
    private static final int[] SIZES = {1, 64, 100, 128, 256, 1000, 4096, 20_000, MIB / 3, MIB};

    @Test
    void concurrentSlabsNeverHandOutOneSlotTwiceAndEndAgreeingWithMemory() throws InterruptedException {
        try (TestNode node = new TestNode(WORKERS, 4)) {
            Map<Long, Integer> live = new ConcurrentHashMap<>();
            List<ConcurrentLinkedQueue<Long>> toFree = new ArrayList<>();
            for (int i = 0; i < WORKERS; i++) {
                toFree.add(new ConcurrentLinkedQueue<>());
            }
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                int worker = w;
                threads.add(Thread.ofPlatform().name("worker-" + w).start(() -> {
                    try {
                        work(node, worker, live, toFree, failures);
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }));
            }
            for (int i = 0; i < 50; i++) {
                node.epochs.advance();
                Thread.sleep(1);
            }
            for (Thread thread : threads) {
                thread.join();
            }
            assertEquals(List.of(), failures);
            for (ConcurrentLinkedQueue<Long> queue : toFree) {
                for (Long address : queue) {
                    node.slab(0).free(address);
                    live.remove(address);
                }
            }
            AllocatorState state = node.blocks.state();
            assertNull(state.difference(node.scan()));
            long[] objects = state.liveObjects();
            assertEquals(live.size(), objects.length);
            long previousEnd = 0;
            for (long address : objects) {
                Integer size = live.get(address);
                assertTrue(size != null, () -> ObjectAddress.toString(address) + " is live in memory but was not handed out");
                assertTrue(previousEnd <= address, "objects overlap");
                previousEnd = address + SizeClasses.sizeOf(SizeClasses.classOf(size));
            }
            AllocatorStats stats = node.blocks.stats();
            assertEquals(live.size(), stats.allocations() - stats.frees());
        }
    }

    private static void work(TestNode node, int worker, Map<Long, Integer> live, List<ConcurrentLinkedQueue<Long>> toFree,
                             List<Throwable> failures) {
        SlabAllocator slab = node.slab(worker);
        SplittableRandom random = new SplittableRandom(worker);
        List<Long> mine = new ArrayList<>();
        for (int op = 0; op < OPERATIONS && failures.isEmpty(); op++) {
            int dice = random.nextInt(100);
            if (dice < 45 || mine.isEmpty()) {
                int size = SIZES[random.nextInt(SIZES.length)];
                long hint = mine.isEmpty() || random.nextBoolean() ? ObjectAddress.NULL : mine.get(random.nextInt(mine.size()));
                long address = slab.tryAllocate(size, hint);
                if (address == ObjectAddress.NULL) {
                    address = slab.allocate(size, hint).toCompletableFuture().join();
                }
                Integer previous = live.putIfAbsent(address, size);
                if (previous != null) {
                    throw new AssertionError("worker " + worker + " got live object " + ObjectAddress.toString(address));
                }
                mine.add(address);
            } else if (dice < 85) {
                long address = mine.remove(random.nextInt(mine.size()));
                live.remove(address);
                slab.free(address);
            } else if (dice < 95) {
                long address = mine.remove(random.nextInt(mine.size()));
                toFree.get((worker + 1 + random.nextInt(WORKERS - 1)) % WORKERS).add(address);
            } else {
                Long address;
                while ((address = toFree.get(worker).poll()) != null) {
                    live.remove(address);
                    slab.free(address);
                }
            }
        }
    }
}
