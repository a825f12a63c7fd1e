package io.farm.bench.fabric;

import org.HdrHistogram.Histogram;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Keeps {@code depth} random reads of {@code size} bytes in flight from one worker until a
 * deadline. Subclasses issue the read one-sided or as an RPC; completions arrive on the same
 * worker, which issues the next read of that slot.
 *
 * <p>Latency is sampled: one read in {@value #SAMPLE_EVERY} is timed from issue to completion
 * (and the deadline is checked then), so that reading the clock twice per operation does not
 * become a large part of what a 64-byte one-sided read costs. The sample is unbiased: which
 * reads are timed does not depend on how long they take.
 */
abstract class ReadPipeline {
    /** One read in this many is timed. */
    static final int SAMPLE_EVERY = 8;

    private final int depth;
    private final long durationNanos;
    private final long span;
    private final SplittableRandom random;
    private final long[] issuedAt;
    // Two significant digits keep the counts array small enough to stay in cache while recording.
    private final Histogram latency = new Histogram(60_000_000_000L, 2);
    private final CompletableFuture<PhaseResult> done = new CompletableFuture<>();
    protected final int size;
    protected final MemorySegment[] buffers;
    private long start;
    private long deadline;
    private long operations;
    private long issued;
    private int inFlight;
    private boolean stopping;

    ReadPipeline(long regionSize, int size, int depth, long durationNanos, long seed) {
        this.size = size;
        this.depth = depth;
        this.durationNanos = durationNanos;
        this.span = (regionSize - size) / 64 + 1;
        this.random = new SplittableRandom(seed);
        this.issuedAt = new long[depth];
        this.buffers = new MemorySegment[depth];
        for (int i = 0; i < depth; i++) {
            buffers[i] = Arena.ofAuto().allocate(Math.max(size, 8), 64);
        }
    }

    /** Issues the read of slot {@code slot} at {@code offset} into {@code buffers[slot]}. */
    protected abstract void issue(int slot, long offset);

    /** Starts the pipeline; must run on the worker. */
    final CompletionStage<PhaseResult> start() {
        start = System.nanoTime();
        deadline = start + durationNanos;
        for (int slot = 0; slot < depth; slot++) {
            next(slot);
        }
        return done;
    }

    private void next(int slot) {
        long offset = random.nextLong(span) * 64;
        inFlight++;
        issuedAt[slot] = issued++ % SAMPLE_EVERY == 0 ? System.nanoTime() : 0;
        issue(slot, offset);
    }

    /** Called on the worker when the read of {@code slot} completed ({@code failure} null) or failed. */
    protected final void completed(int slot, Throwable failure) {
        inFlight--;
        if (failure != null) {
            stopping = true;
            done.completeExceptionally(failure);
            return;
        }
        operations++;
        if (issuedAt[slot] != 0) {
            long now = System.nanoTime();
            latency.recordValue(now - issuedAt[slot]);
            stopping |= now >= deadline;
        }
        if (!stopping) {
            next(slot);
        } else if (inFlight == 0 && !done.isDone()) {
            done.complete(new PhaseResult(operations, System.nanoTime() - start, latency));
        }
    }
}
