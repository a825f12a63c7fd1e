package io.farm.bench.hashtable;

import net.openhft.chronicle.map.ChronicleMap;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The single-machine baseline of {@code farm bench hashtable}: Chronicle Map (OpenHFT), an
 * off-heap hashtable, in this process, holding the same keys and values as the farm table (each
 * 8-byte key and value as the {@code Long} of its 8 little-endian bytes). Gets run on as many
 * platform threads as the measuring node has workers, each through its own sequence of key
 * indices, and every value got is checked.
 */
final class ChronicleBaseline implements AutoCloseable {
    /** Set before Chronicle's first class loads: no usage analytics leave the process. */
    private static final String ANALYTICS = "chronicle.analytics.disable";

    private static final VarHandle WORD = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final ChronicleMap<Long, Long> map;
    private final BenchKeys keys;

    private ChronicleBaseline(ChronicleMap<Long, Long> map, BenchKeys keys) {
        this.map = map;
        this.keys = keys;
    }

    /** A map of every key of {@code keys} (8-byte keys and values), in memory, loaded. */
    static ChronicleBaseline load(BenchKeys keys) {
        int count = keys.count();
        System.setProperty(ANALYTICS, "true");
        ChronicleMap<Long, Long> map = ChronicleMap.of(Long.class, Long.class).name("farm-bench-hashtable")
            .entries(count).create();
        try {
            for (int i = 0; i < count; i++) {
                map.put((long) WORD.get(keys.key(i), 0), (long) WORD.get(keys.value(i), 0));
            }
        } catch (RuntimeException e) {
            map.close();
            throw e;
        }
        return new ChronicleBaseline(map, keys);
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

    /**
     * Gets keys of {@code sequence} until {@code deadline}, reading the clock once per 256 gets.
     * Like a farm lookup in {@link LookupPhase}, each get takes its key from, and checks its
     * value against, the byte arrays of {@link BenchKeys}: both pay the same for the benchmark's
     * own work.
     */
    private long gets(int[] sequence, long deadline) {
        long count = 0;
        int position = 0;
        while (System.nanoTime() - deadline < 0) {
            for (int g = 0; g < 256; g++) {
                int i = sequence[position++ & (sequence.length - 1)];
                Long value = map.get((long) WORD.get(keys.key(i), 0));
                if (value == null || value != (long) WORD.get(keys.value(i), 0)) {
                    throw new IllegalStateException("Chronicle Map get of key #" + i + " returned " + value
                        + ", not its value; the map holds " + map.size() + " of " + keys.count() + " keys");
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
