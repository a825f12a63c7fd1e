package io.farm.bench.hashtable;

import io.farm.core.cluster.Node;
import io.farm.hashtable.HashTable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One measured phase of farm lookups: every worker of the measuring node looks up keys of its
 * own drawn sequence ({@link KeyChoice#draws}) for a fixed time, keeping a window of lookups in
 * flight, and checks every value it gets. A lookup that fails for a passing reason is reissued
 * ({@link Retries}, {@link LookupPath#passing}) and counted once when it succeeds.
 */
final class LookupPhase {
    private LookupPhase() {
    }

    /**
     * Runs lookups by {@code path} for {@code nanos} on every worker of {@code node}.
     *
     * @param draws the key indices of worker w in {@code draws[w]}
     * @throws IllegalStateException (as the cause of an ExecutionException) if a lookup returned a wrong value
     */
    static Throughput run(Node node, HashTable table, LookupPath path, BenchKeys keys, int[][] draws, int window,
                          long nanos) throws Exception {
        int workers = node.config().threads();
        long start = System.nanoTime();
        long deadline = start + nanos;
        List<CompletableFuture<Long>> runs = new ArrayList<>();
        List<Retries> retries = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            int[] sequence = draws[w];
            Retries workerRetries = new Retries(path::passing);
            retries.add(workerRetries);
            runs.add(node.submit(w, worker -> {
                int[] position = {0};
                return WindowedOperations.run(worker, window, on -> {
                    if (System.nanoTime() - deadline >= 0) {
                        return null;
                    }
                    int i = sequence[position[0]++ & (sequence.length - 1)];
                    return workerRetries.run(() -> path.lookup(table, on, keys.key(i))).thenApply(value -> {
                        if (!Arrays.equals(value, keys.value(i))) {
                            throw new IllegalStateException(path.label() + " lookup of key #" + i + " in table " + table.name()
                                + " returned " + (value == null ? "no value" : value.length + " bytes that are not its value"));
                        }
                        return value;
                    });
                });
            }));
        }
        long lookups = 0;
        for (CompletableFuture<Long> run : runs) {
            lookups += run.get(nanos / 1_000_000_000L + 60, TimeUnit.SECONDS);
        }
        long elapsed = System.nanoTime() - start;
        return new Throughput(lookups, elapsed, retries.stream().mapToLong(Retries::count).sum());
    }
}
