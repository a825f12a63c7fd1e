package io.farm.bench.hashtable;

import net.openhft.chronicle.map.ChronicleMap;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The single-machine baseline of {@code farm bench hashtable}: Chronicle Map (OpenHFT), an
 * off-heap hashtable, in this process, holding the same keys and values as the farm table (each
 * 8-byte key and value as the {@code Long} of its first 8 bytes, {@link BenchKeys#keyWord},
 * {@link BenchKeys#valueWord}). Gets run on as many platform threads as the measuring node has
 * workers, each through its own sequence of key indices, and every value got is checked.
 */
final class ChronicleBaseline implements AutoCloseable {
    /** Set before Chronicle's first class loads: no usage analytics leave the process. */
    private static final String ANALYTICS = "chronicle.analytics.disable";

    private final ChronicleMap<Long, Long> map;
    private final int keys;

    private ChronicleBaseline(ChronicleMap<Long, Long> map, int keys) {
        this.map = map;
        this.keys = keys;
    }

    /** A map of keys {@code 0 .. count-1}, in memory, loaded. */
    static ChronicleBaseline load(int count) {
        System.setProperty(ANALYTICS, "true");
        ChronicleMap<Long, Long> map = ChronicleMap.of(Long.class, Long.class).name("farm-bench-hashtable")
            .entries(count).create();
        try {
            for (int i = 0; i < count; i++) {
                map.put(BenchKeys.keyWord(i), BenchKeys.valueWord(i));
            }
        } catch (RuntimeException e) {
            map.close();
            throw e;
        }
        return new ChronicleBaseline(map, count);
    }

    /**
     * Gets for {@code nanos} on {@code draws.length} threads, thread t looking up the keys of {@code draws[t]}.
     *
     * @throws IllegalStateException if a get returned a wrong value
     */
    Throughput run(int[][] draws, long nanos) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + nanos;
        long[] done = new long[draws.length];
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < draws.length; t++) {
            int thread = t;
            threads.add(Thread.ofPlatform().name("chronicle-gets-" + t).start(() -> {
                try {
                    done[thread] = gets(draws[thread], deadline);
                } catch (RuntimeException e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        long total = 0;
        for (long d : done) {
            total += d;
        }
        return new Throughput(total, System.nanoTime() - start, 0);
    }

    /** Gets keys of {@code sequence} until {@code deadline}, reading the clock once per 256 gets. */
    private long gets(int[] sequence, long deadline) {
        long count = 0;
        int position = 0;
        while (System.nanoTime() - deadline < 0) {
            for (int g = 0; g < 256; g++) {
                int i = sequence[position++ & (sequence.length - 1)];
                Long value = map.get(BenchKeys.keyWord(i));
                if (value == null || value != BenchKeys.valueWord(i)) {
                    throw new IllegalStateException("Chronicle Map get of key #" + i + " returned " + value
                        + ", not its value; the map holds " + map.size() + " of " + keys + " keys");
                }
            }
            count += 256;
        }
        return count;
    }

    @Override
    public void close() {
        map.close();
    }
}
