package io.farm.bench;

import io.farm.core.cluster.EmbeddedCluster;
import io.farm.core.cluster.NodeWorker;
import io.farm.hashtable.HashTable;
import org.HdrHistogram.Histogram;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * The demo's load and mix: every worker of every node runs a closed loop with {@code window}
 * operations in flight, continuations on the worker (FaRM's model). Values are self-checking:
 * {@code key bytes | version (8 bytes) | filler}, so every lookup is verified.
 */
final class DemoWorkload {
    private final EmbeddedCluster cluster;
    private final List<HashTable> tables;
    private final int keys;
    private final int window;
    private final AtomicBoolean stop;

    /** What a phase did. */
    record Result(long updates, long nanos, Histogram lookupLatency, Histogram updateLatency, long verified, long wrong,
                  long failed, String firstFailure) {
    }

    DemoWorkload(EmbeddedCluster cluster, List<HashTable> tables, int keys, int window, AtomicBoolean stop) {
        this.cluster = cluster;
        this.tables = tables;
        this.keys = keys;
        this.window = window;
        this.stop = stop;
    }

    static byte[] key(int index) {
        return String.format("user%012d", index).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] value(byte[] key, long version) {
        ByteBuffer value = ByteBuffer.allocate(DemoCommand.VALUE_BYTES);
        value.put(key, 0, Math.min(key.length, DemoCommand.VALUE_BYTES - Long.BYTES)).putLong(version);
        return value.array();
    }

    static boolean valid(byte[] key, byte[] value) {
        if (value == null || value.length != DemoCommand.VALUE_BYTES) {
            return false;
        }
        int length = Math.min(key.length, DemoCommand.VALUE_BYTES - Long.BYTES);
        return java.util.Arrays.equals(key, 0, length, value, 0, length);
    }

    /** Puts every key once, split over every worker; {@code progress} sees the count from this thread. */
    Result load(LongConsumer progress) throws InterruptedException {
        AtomicLong done = new AtomicLong();
        List<CompletableFuture<Void>> loops = new ArrayList<>();
        int drivers = cluster.nodes().size() * cluster.config().threads();
        int driver = 0;
        for (int n = 0; n < cluster.nodes().size(); n++) {
            for (int w = 0; w < cluster.config().threads(); w++, driver++) {
                int first = driver;
                HashTable table = tables.get(n);
                loops.add(cluster.node(n).submit(w, worker -> {
                    Loop loop = new Loop(worker, first, drivers, table, done);
                    return loop.start();
                }));
            }
        }
        CompletableFuture<Void> all = CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new));
        while (!all.isDone()) {
            progress.accept(done.get());
            try {
                all.get(250, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException notYet) {
                // Keep drawing the progress bar.
            } catch (java.util.concurrent.ExecutionException failed) {
                throw new IllegalStateException("loading failed", failed.getCause());
            }
        }
        progress.accept(done.get());
        return new Result(done.get(), 0, new Histogram(3), new Histogram(3), 0, 0, 0, null);
    }

    /** The loader of one worker: keys {@code first, first + stride, ...}, {@code window} in flight. */
    private final class Loop {
        private final NodeWorker worker;
        private final HashTable table;
        private final AtomicLong done;
        private final int stride;
        private int next;
        private int inFlight;
        private final CompletableFuture<Void> finished = new CompletableFuture<>();

        Loop(NodeWorker worker, int first, int stride, HashTable table, AtomicLong done) {
            this.worker = worker;
            this.next = first;
            this.stride = stride;
            this.table = table;
            this.done = done;
        }

        CompletableFuture<Void> start() {
            for (int i = 0; i < window; i++) {
                issue();
            }
            if (inFlight == 0) {
                finished.complete(null);
            }
            return finished;
        }

        private void issue() {
            if (next >= keys || stop.get()) {
                return;
            }
            byte[] key = key(next);
            next += stride;
            inFlight++;
            table.put(worker, key, value(key, 0)).whenComplete((ignored, failure) -> {
                inFlight--;
                if (failure != null) {
                    finished.completeExceptionally(failure);
                    return;
                }
                done.incrementAndGet();
                issue();
                if (inFlight == 0) {
                    finished.complete(null);
                }
            });
        }
    }

    /** Runs the mix for {@code nanos} on every worker; merges the workers' histograms. */
    Result mix(int lookupPercent, long nanos) throws Exception {
        List<CompletableFuture<Mixer>> mixers = new ArrayList<>();
        long start = System.nanoTime();
        long end = start + nanos;
        int seed = 0;
        for (int n = 0; n < cluster.nodes().size(); n++) {
            for (int w = 0; w < cluster.config().threads(); w++) {
                HashTable table = tables.get(n);
                long mixerSeed = ++seed;
                mixers.add(cluster.node(n).submit(w, worker ->
                    new Mixer(worker, table, lookupPercent, end, mixerSeed).start()));
            }
        }
        Histogram lookups = new Histogram(3);
        Histogram updates = new Histogram(3);
        long verified = 0;
        long wrong = 0;
        long updated = 0;
        long failed = 0;
        String firstFailure = null;
        for (CompletableFuture<Mixer> future : mixers) {
            Mixer mixer = future.get(nanos / 1_000_000_000 + 60, TimeUnit.SECONDS);
            lookups.add(mixer.lookups);
            updates.add(mixer.updates);
            verified += mixer.verified;
            wrong += mixer.wrong;
            updated += mixer.updates.getTotalCount();
            failed += mixer.failed;
            firstFailure = firstFailure != null ? firstFailure : mixer.firstFailure;
        }
        return new Result(updated, System.nanoTime() - start, lookups, updates, verified, wrong, failed, firstFailure);
    }

    /** One worker's mix loop. */
    private final class Mixer {
        final Histogram lookups = new Histogram(3);
        final Histogram updates = new Histogram(3);
        long verified;
        long wrong;
        long failed;
        String firstFailure;
        private final NodeWorker worker;
        private final HashTable table;
        private final int lookupPercent;
        private final long end;
        private final SplittableRandom random;
        private int inFlight;
        private long version;
        private final CompletableFuture<Mixer> finished = new CompletableFuture<>();

        Mixer(NodeWorker worker, HashTable table, int lookupPercent, long end, long seed) {
            this.worker = worker;
            this.table = table;
            this.lookupPercent = lookupPercent;
            this.end = end;
            this.random = new SplittableRandom(seed);
        }

        CompletableFuture<Mixer> start() {
            for (int i = 0; i < window; i++) {
                issue();
            }
            return finished;
        }

        private void issue() {
            long now = System.nanoTime();
            if (now - end >= 0 || stop.get()) {
                if (inFlight == 0) {
                    finished.complete(this);
                }
                return;
            }
            byte[] key = key(random.nextInt(keys));
            inFlight++;
            if (random.nextInt(100) < lookupPercent) {
                table.get(worker, key).whenComplete((value, failure) -> {
                    lookups.recordValue(Math.max(1, System.nanoTime() - now));
                    if (failure != null) {
                        failed(failure);
                    } else if (valid(key, value)) {
                        verified++;
                    } else {
                        wrong++;
                    }
                    done();
                });
            } else {
                table.put(worker, key, value(key, ++version)).whenComplete((ignored, failure) -> {
                    updates.recordValue(Math.max(1, System.nanoTime() - now));
                    if (failure != null) {
                        failed(failure);
                    }
                    done();
                });
            }
        }

        private void failed(Throwable failure) {
            failed++;
            if (firstFailure == null) {
                firstFailure = String.valueOf(failure);
            }
        }

        private void done() {
            inFlight--;
            issue();
        }
    }
}
