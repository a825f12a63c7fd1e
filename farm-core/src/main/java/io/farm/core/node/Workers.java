package io.farm.core.node;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * A node's {@code T} workers, numbered 0 .. T-1 (DESIGN §2).
 */
public final class Workers implements AutoCloseable {
    /** Largest number of workers of one node. */
    public static final int MAX_WORKERS = 64;

    private final Worker[] workers;
    private final AtomicInteger nextIndex = new AtomicInteger();

    private Workers(Worker[] workers) {
        this.workers = workers;
    }

    /**
     * Starts {@code count} workers, one after the other: worker {@code i} is built by
     * {@code builderOf.apply(i)}, given index {@code i}, and started. If one fails to start, the
     * ones already started are closed and the failure is thrown.
     *
     * @param count     1 .. {@value #MAX_WORKERS}
     * @param builderOf the builder of worker {@code i} (its name, idle strategy, pinning, callbacks)
     * @throws IllegalArgumentException if {@code count} is out of range
     * @throws IllegalStateException    if a worker fails to start
     */
    public static Workers start(int count, IntFunction<Worker.Builder> builderOf) {
        if (count < 1 || count > MAX_WORKERS) {
            throw new IllegalArgumentException("worker count " + count + " is not accepted: it must be 1.." + MAX_WORKERS);
        }
        Objects.requireNonNull(builderOf, "builderOf");
        Worker[] workers = new Worker[count];
        try {
            for (int i = 0; i < count; i++) {
                workers[i] = builderOf.apply(i).index(i).start();
            }
        } catch (RuntimeException | Error e) {
            closeAll(workers, e);
            throw e;
        }
        return new Workers(workers);
    }

    /** Number of workers. */
    public int count() {
        return workers.length;
    }

    /**
     * Worker {@code index}.
     *
     * @throws IndexOutOfBoundsException unless 0 .. count()-1
     */
    public Worker worker(int index) {
        return workers[Objects.checkIndex(index, workers.length)];
    }

    /**
     * Runs {@code task} on worker {@code index}, as {@link Worker#execute}.
     *
     * @throws IndexOutOfBoundsException  unless 0 .. count()-1
     * @throws RejectedExecutionException as {@link Worker#execute}
     */
    public void execute(int index, Runnable task) {
        worker(index).execute(task);
    }

    /** The next worker in round-robin order; safe from any thread. */
    public Worker next() {
        return workers[Integer.remainderUnsigned(nextIndex.getAndIncrement(), workers.length)];
    }

    /**
     * Runs {@code operation} on a worker and returns a future completed on that worker (see
     * {@link Worker#submit}). Called from one of these workers, the operation stays on the
     * calling worker, so that the caller's continuations stay on its thread; from any other
     * thread it goes to the {@link #next()} worker.
     */
    public <T> CompletableFuture<T> submit(Supplier<? extends CompletionStage<T>> operation) {
        Worker current = Worker.current();
        Worker target = current != null && owns(current) ? current : next();
        return target.submit(operation);
    }

    /** Runs {@code operation} on worker {@code index}; see {@link Worker#submit}. */
    public <T> CompletableFuture<T> submit(int index, Supplier<? extends CompletionStage<T>> operation) {
        return worker(index).submit(operation);
    }

    /** Failures reported by all workers so far. */
    public long errorCount() {
        long sum = 0;
        for (Worker worker : workers) {
            sum += worker.errorCount();
        }
        return sum;
    }

    /**
     * Stops every worker: asks all to stop first, so they wind down together, then closes each
     * (see {@link Worker#close()}). Idempotent.
     *
     * @throws IllegalStateException if a worker did not stop; the others are still closed
     */
    @Override
    public void close() {
        for (Worker worker : workers) {
            worker.requestStop();
        }
        RuntimeException failure = closeAll(workers, null);
        if (failure != null) {
            throw failure;
        }
    }

    private boolean owns(Worker worker) {
        int index = worker.index();
        return index < workers.length && workers[index] == worker;
    }

    /** Closes every non-null worker; returns the first failure with the later ones suppressed. */
    private static RuntimeException closeAll(Worker[] workers, Throwable pending) {
        RuntimeException first = null;
        for (Worker worker : workers) {
            if (worker == null) {
                continue;
            }
            try {
                worker.close();
            } catch (RuntimeException e) {
                if (pending != null) {
                    pending.addSuppressed(e);
                } else if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        return first;
    }
}
