package io.farm.core.node;

import org.agrona.ErrorHandler;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

/**
 * One worker thread of a node and its event loop (DESIGN §2). Each step of the loop
 * <ol>
 *   <li>runs every registered {@link Poller} (fabric completions, incoming message rings),</li>
 *   <li>runs up to {@value #MAX_INBOX_TASKS_PER_STEP} tasks handed over by other threads
 *       (the <em>inbox</em>, a bounded many-to-one queue),</li>
 *   <li>runs the <em>continuations</em>: tasks the worker queued for itself before this step
 *       began. A task queued by the worker runs in a later step, never re-entrantly;</li>
 * </ol>
 * then calls its idle strategy with the amount of work done. An idle worker ends up parked
 * (with the default {@link IdleStrategies#BACKOFF}); handing it a task unparks it.
 *
 * <p>Resources confined to the worker thread (a fabric port) are opened by the
 * {@link Builder#onStart onStart} callback, which runs on the worker thread before the loop and
 * may register pollers, and closed by {@link Builder#onStop onStop}, which runs on the worker
 * thread after the loop.
 *
 * <p><b>Inbox full.</b> The inbox holds {@link Builder#inboxCapacity} tasks. When it is full, a
 * thread that is not a worker waits for space (back-pressure, as a full message ring); a worker
 * thread gets a {@link RejectedExecutionException} at once, because a worker must not block.
 *
 * <p><b>Failures.</b> A task or poller that throws does not stop the loop: the throwable goes to
 * the {@link Builder#errorHandler error handler} (by default printed to {@code System.err} with the
 * worker's name) and is counted in {@link #errorCount()}.
 *
 * <p><b>Stop.</b> {@link #close()} asks the loop to stop and wakes it. The loop finishes its step,
 * then runs every task still queued (in the inbox or as continuations, including continuations
 * those tasks queue) without polling any more, then runs onStop. Tasks handed over after
 * close() began are rejected. Every task accepted by {@link #execute} therefore runs.
 *
 * <p>The worker thread is a daemon thread: a worker that is never closed does not keep the JVM
 * alive, and a node process must keep itself alive by other means (its main thread waits).
 */
public final class Worker implements Executor, AutoCloseable {
    /** Default capacity of the inbox. */
    public static final int DEFAULT_INBOX_CAPACITY = 16 * 1024;
    /** Most inbox tasks run in one step, so that pollers are not starved by a flood of tasks. */
    public static final int MAX_INBOX_TASKS_PER_STEP = 256;
    /** Default time {@link #close()} waits for the thread to end. */
    public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private static final VarHandle IDLE;
    private static final VarHandle SUBMITTERS;
    private static final VarHandle ERRORS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            IDLE = lookup.findVarHandle(Worker.class, "idle", boolean.class);
            SUBMITTERS = lookup.findVarHandle(Worker.class, "submitters", int.class);
            ERRORS = lookup.findVarHandle(Worker.class, "errors", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String name;
    private final int index;
    private final IdleStrategy idleStrategy;
    private final ErrorHandler errorHandler;
    private final Consumer<Worker> onStart;
    private final Consumer<Worker> onStop;
    private final IntConsumer pinner;
    private final int cpu;
    private final Duration closeTimeout;
    private final ManyToOneConcurrentArrayQueue<Runnable> inbox;
    private final ArrayDeque<Runnable> continuations = new ArrayDeque<>();
    private final Consumer<Runnable> taskRunner = this::runTask;
    private final WorkerThread thread;
    private final CountDownLatch started = new CountDownLatch(1);

    /** Registered pollers; read and replaced on the worker thread only. */
    private Poller[] pollers = new Poller[0];
    /** Set by close(); read by the loop and by threads handing over tasks. */
    private volatile boolean stopRequested;
    /** Set by the worker thread on start failure, before {@code started} counts down. */
    private volatile Throwable startFailure;
    /** Set on the worker thread once onStop is due: continuations are refused from then on. */
    private boolean stopping;
    /** True while the loop may park (see {@link #idle(int)}); accessed through {@link #IDLE}. */
    @SuppressWarnings("unused")
    private boolean idle;
    /** Threads inside the hand-over section of {@link #execute}; accessed through {@link #SUBMITTERS}. */
    @SuppressWarnings("unused")
    private int submitters;
    /** Failures reported; single writer (the worker thread), opaque. */
    private long errors;

    private Worker(Builder builder) {
        this.name = builder.name;
        this.index = builder.index;
        this.idleStrategy = builder.idleStrategy != null ? builder.idleStrategy : IdleStrategies.create(IdleStrategies.DEFAULT);
        this.errorHandler = builder.errorHandler != null ? builder.errorHandler : this::printError;
        this.onStart = builder.onStart;
        this.onStop = builder.onStop;
        this.pinner = builder.pinner;
        this.cpu = builder.cpu;
        this.closeTimeout = builder.closeTimeout;
        this.inbox = new ManyToOneConcurrentArrayQueue<>(builder.inboxCapacity);
        this.thread = new WorkerThread(this);
    }

    /**
     * A builder of a worker named {@code name} (also its thread's name).
     *
     * @throws IllegalArgumentException if the name is null or blank
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** The worker whose thread calls this, or null when called from any other thread. */
    public static Worker current() {
        return Thread.currentThread() instanceof WorkerThread t ? t.worker : null;
    }

    /** Whether the calling thread is a worker thread (of any worker). */
    public static boolean isWorkerThread() {
        return Thread.currentThread() instanceof WorkerThread;
    }

    /** The worker's name, also the name of its thread. */
    public String name() {
        return name;
    }

    /** The worker's index among its node's workers (0 for a worker not started by {@link Workers}). */
    public int index() {
        return index;
    }

    /** Whether the calling thread is this worker's thread. */
    public boolean inWorkerThread() {
        return Thread.currentThread() == thread;
    }

    /** Failures of tasks, pollers and callbacks reported so far. Readable from any thread. */
    public long errorCount() {
        return (long) ERRORS.getOpaque(this);
    }

    /**
     * Registers a poller, run once per step from the next step on. Must be called on this
     * worker's thread (from onStart or a task), since pollers are confined to it.
     *
     * @throws IllegalStateException if called from another thread
     */
    public void addPoller(Poller poller) {
        Objects.requireNonNull(poller, "poller");
        requireWorkerThread("addPoller");
        Poller[] grown = Arrays.copyOf(pollers, pollers.length + 1);
        grown[pollers.length] = poller;
        pollers = grown;
    }

    /**
     * Runs {@code task} on this worker. From this worker's own thread the task becomes a
     * continuation that runs in a later step; from any other thread it goes to the inbox and
     * wakes the worker if it is idle.
     *
     * @throws RejectedExecutionException if the worker is closing or closed; if the inbox is full
     *                                    and the caller is a worker thread; or if the caller is
     *                                    interrupted while waiting for space in a full inbox
     */
    @Override
    public void execute(Runnable task) {
        Objects.requireNonNull(task, "task");
        if (Thread.currentThread() == thread) {
            if (stopping) {
                throw new RejectedExecutionException("worker " + name + " is stopping: it runs no more tasks");
            }
            continuations.addLast(task);
            return;
        }
        IdleStrategy waitForSpace = null;
        while (true) {
            if (offer(task)) {
                wake();
                return;
            }
            if (isWorkerThread()) {
                throw new RejectedExecutionException("inbox of worker " + name + " is full (" + inbox.capacity()
                    + " tasks) and the caller, worker " + current().name + ", must not block waiting for space: retry later");
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new RejectedExecutionException("interrupted while waiting for space in the full inbox of worker "
                    + name + " (" + inbox.capacity() + " tasks)");
            }
            if (waitForSpace == null) {
                waitForSpace = new BackoffIdleStrategy();
            }
            waitForSpace.idle();
        }
    }

    /**
     * Runs {@code operation} on this worker and returns a future completed on this worker with
     * the outcome of the stage it returns (FaRM's rule: continuations run on the thread that
     * issued the operation). If that stage completes on another thread, the outcome is handed
     * back to this worker first. A supplier that throws or returns null fails the future.
     *
     * @throws RejectedExecutionException as {@link #execute}
     */
    public <T> CompletableFuture<T> submit(Supplier<? extends CompletionStage<T>> operation) {
        Objects.requireNonNull(operation, "operation");
        CompletableFuture<T> result = new CompletableFuture<>();
        execute(() -> {
            CompletionStage<T> stage;
            try {
                stage = operation.get();
            } catch (Throwable t) {
                result.completeExceptionally(t);
                return;
            }
            if (stage == null) {
                result.completeExceptionally(new NullPointerException("the operation submitted to worker " + name
                    + " returned null instead of a CompletionStage"));
                return;
            }
            stage.whenComplete((value, failure) -> completeHere(result, value, failure));
        });
        return result;
    }

    private <T> void completeHere(CompletableFuture<T> result, T value, Throwable failure) {
        if (Thread.currentThread() == thread) {
            complete(result, value, failure);
            return;
        }
        try {
            execute(() -> complete(result, value, failure));
        } catch (RejectedExecutionException closed) {
            // Completing on this thread would run the caller's continuations off the worker.
            RejectedExecutionException undelivered = new RejectedExecutionException("worker " + name
                + " closed before the outcome of a submitted operation could be delivered on it", closed);
            if (failure != null) {
                undelivered.addSuppressed(failure);
            }
            result.completeExceptionally(undelivered);
        }
    }

    private static <T> void complete(CompletableFuture<T> result, T value, Throwable failure) {
        if (failure == null) {
            result.complete(value);
        } else {
            result.completeExceptionally(failure);
        }
    }

    /**
     * Stops the worker: asks the loop to stop, wakes it, and waits up to the close timeout for
     * the thread to run the remaining tasks and onStop and end. If it has not ended by then it is
     * interrupted and waited for once more. Idempotent. Called on the worker's own thread, it only
     * asks the loop to stop (the loop ends after the current step) and returns.
     *
     * @throws IllegalStateException if the thread is still alive after both waits (a task that
     *                               never returns); the message shows where it is stuck
     */
    @Override
    public void close() {
        requestStop();
        if (Thread.currentThread() == thread) {
            return;
        }
        if (!joinUninterruptibly(closeTimeout)) {
            thread.interrupt();
            if (!joinUninterruptibly(closeTimeout)) {
                throw new IllegalStateException("worker " + name + " did not stop within " + closeTimeout.multipliedBy(2)
                    + ": a task or callback never returns; its thread is at " + Arrays.toString(thread.getStackTrace()));
            }
        }
    }

    /** Asks the loop to stop and wakes it, without waiting. */
    void requestStop() {
        stopRequested = true;
        // A permit given before the loop parks makes that park return at once: not lost.
        LockSupport.unpark(thread);
    }

    private boolean joinUninterruptibly(Duration timeout) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                try {
                    long left = deadline - System.nanoTime();
                    return thread.join(Duration.ofNanos(Math.max(left, 0)));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The hand-over section: a thread counts itself in, checks that no stop was requested, offers
     * and counts itself out. The worker, once it has seen the stop request, waits for the count to
     * reach zero before its final drain (see {@link #drain()}).
     *
     * <p>Ordering: the increment is a volatile read-modify-write and {@code stopRequested} is
     * volatile, so in the synchronization order either this thread's read of
     * {@code stopRequested} follows close()'s write (the task is rejected) or this increment
     * precedes the worker's read of the count (the worker waits for the decrement, which follows
     * the offer, and so finds the task when it drains).
     */
    private boolean offer(Runnable task) {
        SUBMITTERS.getAndAdd(this, 1);
        try {
            if (stopRequested) {
                throw new RejectedExecutionException("worker " + name + " is closed");
            }
            return inbox.offer(task);
        } finally {
            SUBMITTERS.getAndAdd(this, -1);
        }
    }

    /**
     * Wakes the worker if it may be parked. Ordering (a Dekker pair with {@link #idle(int)}): the
     * offer CASed the inbox tail (volatile) before this volatile read of {@code idle}; the loop
     * writes {@code idle} (volatile) before it reads the tail (volatile) to decide whether to
     * park. In the total order of these accesses at least one side sees the other's write: either
     * the loop sees the task and does not park, or this sees {@code idle} and unparks. An unpark
     * that lands before the park leaves a permit that makes the park return at once, so no
     * wake-up is lost.
     */
    private void wake() {
        if ((boolean) IDLE.getVolatile(this)) {
            LockSupport.unpark(thread);
        }
    }

    private void run() {
        try {
            if (pinner != null) {
                pinner.accept(cpu);
            }
            if (onStart != null) {
                onStart.accept(this);
            }
        } catch (Throwable t) {
            stopRequested = true;
            startFailure = t;
        }
        started.countDown();
        while (!stopRequested) {
            idle(step());
        }
        drain();
        stopping = true;
        if (onStop != null) {
            try {
                onStop.accept(this);
            } catch (Throwable t) {
                report(t);
            }
        }
    }

    private int step() {
        int continuationsDue = continuations.size();
        int work = 0;
        for (Poller poller : pollers) {
            work += poll(poller);
        }
        work += inbox.drain(taskRunner, MAX_INBOX_TASKS_PER_STEP);
        for (int i = 0; i < continuationsDue; i++) {
            runTask(continuations.pollFirst());
        }
        return work + continuationsDue;
    }

    private int poll(Poller poller) {
        try {
            return Math.max(poller.poll(), 0);
        } catch (Throwable t) {
            report(t);
            return 0;
        }
    }

    private void runTask(Runnable task) {
        try {
            task.run();
        } catch (Throwable t) {
            report(t);
        }
    }

    /** Idles after a step that did {@code work}; see {@link #wake()} for the ordering. */
    private void idle(int work) {
        if (work > 0) {
            idleStrategy.idle(work);
            return;
        }
        if (!continuations.isEmpty()) {
            return; // a poller queued a continuation: run it in the next step without idling
        }
        if (Thread.interrupted()) {
            // An interrupt would make every park return at once and keep the core busy.
            report(new IllegalStateException("worker " + name + " was interrupted; the interrupt is ignored:"
                + " a worker is stopped with close()"));
        }
        IDLE.setVolatile(this, true);
        if (inbox.isEmpty() && !stopRequested) {
            idleStrategy.idle(0);
        }
        // A stale true seen by a submitter costs a spare unpark, nothing else: opaque suffices.
        IDLE.setOpaque(this, false);
    }

    /**
     * Runs every task still queued once the loop has stopped: first waits until no thread is in
     * the hand-over section (none can enter it successfully any more, see {@link #offer}), then
     * empties the inbox and the continuations, including those the drained tasks queue.
     */
    private void drain() {
        while ((int) SUBMITTERS.getVolatile(this) != 0) {
            Thread.yield();
        }
        inbox.drain(taskRunner, Integer.MAX_VALUE);
        Runnable continuation;
        while ((continuation = continuations.pollFirst()) != null) {
            runTask(continuation);
        }
    }

    private void report(Throwable failure) {
        ERRORS.setOpaque(this, errors + 1);
        try {
            errorHandler.onError(failure);
        } catch (Throwable handlerFailure) {
            handlerFailure.addSuppressed(failure);
            printError(handlerFailure);
        }
    }

    private void printError(Throwable failure) {
        System.err.println("worker " + name + ": " + failure);
        failure.printStackTrace(System.err);
    }

    private void requireWorkerThread(String operation) {
        if (Thread.currentThread() != thread) {
            throw new IllegalStateException(operation + " must be called on the thread of worker " + name
                + ", not on " + Thread.currentThread().getName());
        }
    }

    private void start() {
        thread.start();
        boolean interrupted = false;
        while (true) {
            try {
                started.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        Throwable failure = startFailure;
        if (failure != null) {
            close();
            throw new IllegalStateException("worker " + name + " failed to start: " + failure, failure);
        }
    }

    @Override
    public String toString() {
        return "Worker[" + name + "]";
    }

    /** The thread of a worker; lets {@link #current()} find the worker without a thread local. */
    private static final class WorkerThread extends Thread {
        final Worker worker;

        WorkerThread(Worker worker) {
            super(worker::run, worker.name);
            this.worker = worker;
            setDaemon(true);
        }
    }

    /**
     * Configures and starts a {@link Worker}. Every setting is optional except the name.
     */
    public static final class Builder {
        private final String name;
        private int index;
        private IdleStrategy idleStrategy;
        private ErrorHandler errorHandler;
        private Consumer<Worker> onStart;
        private Consumer<Worker> onStop;
        private IntConsumer pinner;
        private int cpu = -1;
        private int inboxCapacity = DEFAULT_INBOX_CAPACITY;
        private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;

        private Builder(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("worker name '" + name + "' is not accepted: it must not be blank");
            }
            this.name = name;
        }

        /** The worker's index among its node's workers; {@link Workers} sets it. Must be >= 0. */
        public Builder index(int index) {
            if (index < 0) {
                throw new IllegalArgumentException("worker index " + index + " is not accepted: it must be >= 0");
            }
            this.index = index;
            return this;
        }

        /**
         * The idle strategy, used by this worker only (strategies are stateful). Default: a new
         * {@link IdleStrategies#BACKOFF}.
         */
        public Builder idleStrategy(IdleStrategy idleStrategy) {
            this.idleStrategy = Objects.requireNonNull(idleStrategy, "idleStrategy");
            return this;
        }

        /** Where failures of tasks, pollers and callbacks go. Default: printed to System.err. */
        public Builder errorHandler(ErrorHandler errorHandler) {
            this.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler");
            return this;
        }

        /**
         * Runs on the worker thread before the loop starts (after pinning): opens the resources
         * confined to the worker and registers its pollers. If it throws, the worker does not
         * start: onStop still runs (so it must cope with a partial start) and
         * {@link #start()} throws.
         */
        public Builder onStart(Consumer<Worker> onStart) {
            this.onStart = Objects.requireNonNull(onStart, "onStart");
            return this;
        }

        /** Runs on the worker thread after the loop ends and the remaining tasks ran: closes its resources. */
        public Builder onStop(Consumer<Worker> onStop) {
            this.onStop = Objects.requireNonNull(onStop, "onStop");
            return this;
        }

        /**
         * Pins the worker thread: {@code pinner.accept(cpu)} runs first on the worker thread. A
         * pinner that throws makes the start fail.
         *
         * @throws IllegalArgumentException if {@code cpu} is negative
         */
        public Builder pinTo(int cpu, IntConsumer pinner) {
            if (cpu < 0) {
                throw new IllegalArgumentException("cpu " + cpu + " is not accepted: it must be >= 0");
            }
            this.pinner = Objects.requireNonNull(pinner, "pinner");
            this.cpu = cpu;
            return this;
        }

        /**
         * Capacity of the inbox (rounded up to a power of two). Default {@value #DEFAULT_INBOX_CAPACITY}.
         *
         * @throws IllegalArgumentException unless 2 .. 2^30
         */
        public Builder inboxCapacity(int capacity) {
            if (capacity < 2 || capacity > 1 << 30) {
                throw new IllegalArgumentException("inbox capacity " + capacity + " is not accepted: it must be 2 .. 2^30");
            }
            this.inboxCapacity = capacity;
            return this;
        }

        /**
         * How long {@link Worker#close()} waits for the thread, twice (before and after
         * interrupting it). Default 10 s.
         *
         * @throws IllegalArgumentException unless positive
         */
        public Builder closeTimeout(Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("close timeout " + timeout + " is not accepted: it must be positive");
            }
            this.closeTimeout = timeout;
            return this;
        }

        /**
         * Starts the worker thread and waits until pinning and onStart have run on it.
         *
         * @throws IllegalStateException if pinning or onStart threw (the cause); the thread has
         *                               then ended, after running onStop
         */
        public Worker start() {
            Worker worker = new Worker(this);
            worker.start();
            return worker;
        }
    }
}
