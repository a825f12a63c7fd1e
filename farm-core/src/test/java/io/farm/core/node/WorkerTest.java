package io.farm.core.node;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WorkerTest {
    /** Generous bound for liveness waits: a wait that hits it means the behaviour is broken. */
    static final long LIVENESS_SECONDS = 30;
    /** Parks of this length never end by themselves within a test: only an unpark ends them. */
    static final long HOUR_NS = TimeUnit.HOURS.toNanos(1);

    private final List<Worker> started = new ArrayList<>();

    @AfterEach
    void closeWorkers() {
        started.forEach(Worker::close);
    }

    private Worker start(Worker.Builder builder) {
        Worker worker = builder.start();
        started.add(worker);
        return worker;
    }

    /** A worker that records its thread on start. */
    private Worker startRecordingThread(Worker.Builder builder, AtomicReference<Thread> thread) {
        return start(builder.onStart(w -> thread.set(Thread.currentThread())));
    }

    static void await(CountDownLatch latch) throws InterruptedException {
        assertTrue(latch.await(LIVENESS_SECONDS, TimeUnit.SECONDS), "not done within " + LIVENESS_SECONDS + " s");
    }

    /** Waits until the thread's state satisfies {@code condition}; fails after the liveness bound. */
    static void awaitState(Thread thread, Predicate<Thread.State> condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIVENESS_SECONDS);
        while (!condition.test(thread.getState())) {
            assertTrue(System.nanoTime() < deadline, "thread " + thread.getName() + " stayed " + thread.getState());
            Thread.sleep(1);
        }
    }

    static boolean parked(Thread.State state) {
        return state == Thread.State.TIMED_WAITING || state == Thread.State.WAITING;
    }

    @Test
    void tasksSubmittedFromAnotherThreadRunOnTheWorker() throws InterruptedException {
        AtomicReference<Thread> workerThread = new AtomicReference<>();
        Worker worker = startRecordingThread(Worker.builder("w-exec"), workerThread);
        int tasks = 100;
        ConcurrentLinkedQueue<Thread> ranOn = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Worker> currentWorker = new ConcurrentLinkedQueue<>();
        CountDownLatch done = new CountDownLatch(tasks);
        for (int i = 0; i < tasks; i++) {
            worker.execute(() -> {
                ranOn.add(Thread.currentThread());
                currentWorker.add(Worker.current());
                done.countDown();
            });
        }
        await(done);
        assertEquals(tasks, ranOn.size());
        ranOn.forEach(t -> assertSame(workerThread.get(), t));
        currentWorker.forEach(w -> assertSame(worker, w));
        assertEquals("w-exec", workerThread.get().getName());
    }

    @Test
    void currentIsNullOffWorkerAndTheWorkerOnIt() throws InterruptedException {
        Worker worker = start(Worker.builder("w-current"));
        assertNull(Worker.current());
        assertFalse(Worker.isWorkerThread());
        assertFalse(worker.inWorkerThread());
        AtomicReference<Worker> current = new AtomicReference<>();
        AtomicBoolean flags = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(1);
        worker.execute(() -> {
            current.set(Worker.current());
            flags.set(Worker.isWorkerThread() && worker.inWorkerThread());
            done.countDown();
        });
        await(done);
        assertSame(worker, current.get());
        assertTrue(flags.get());
    }

    @Test
    void continuationRunsOnTheSameWorkerAfterTheCurrentStep() throws InterruptedException {
        AtomicReference<Thread> workerThread = new AtomicReference<>();
        AtomicInteger steps = new AtomicInteger();
        Worker worker = start(Worker.builder("w-cont").onStart(w -> {
            workerThread.set(Thread.currentThread());
            w.addPoller(() -> {
                steps.incrementAndGet(); // one poll per step: counts the steps
                return 0;
            });
        }));
        AtomicBoolean taskReturned = new AtomicBoolean();
        AtomicBoolean sawTaskReturned = new AtomicBoolean();
        AtomicInteger taskStep = new AtomicInteger();
        AtomicInteger continuationStep = new AtomicInteger();
        AtomicReference<Thread> continuationThread = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        worker.execute(() -> {
            taskStep.set(steps.get());
            worker.execute(() -> {
                sawTaskReturned.set(taskReturned.get());
                continuationStep.set(steps.get());
                continuationThread.set(Thread.currentThread());
                done.countDown();
            });
            taskReturned.set(true);
        });
        await(done);
        assertTrue(sawTaskReturned.get(), "the continuation ran inside the task that queued it");
        assertTrue(continuationStep.get() > taskStep.get(), "the continuation ran in the step that queued it");
        assertSame(workerThread.get(), continuationThread.get());
    }

    @Test
    void aContinuationQueuedByAContinuationRunsInALaterStepStill() throws InterruptedException {
        AtomicInteger steps = new AtomicInteger();
        Worker worker = start(Worker.builder("w-chain").onStart(w -> w.addPoller(() -> {
            steps.incrementAndGet();
            return 0;
        })));
        int links = 20;
        int[] stepOfLink = new int[links];
        CountDownLatch done = new CountDownLatch(1);
        worker.execute(new Runnable() {
            int link;

            @Override
            public void run() {
                stepOfLink[link] = steps.get();
                if (++link < links) {
                    worker.execute(this);
                } else {
                    done.countDown();
                }
            }
        });
        await(done);
        for (int i = 1; i < links; i++) {
            assertTrue(stepOfLink[i] > stepOfLink[i - 1], "links " + (i - 1) + " and " + i + " ran in one step");
        }
    }

    @Test
    void anIdleWorkerEndsUpParked() throws InterruptedException {
        AtomicReference<Thread> workerThread = new AtomicReference<>();
        startRecordingThread(Worker.builder("w-idle"), workerThread);
        awaitState(workerThread.get(), WorkerTest::parked);
    }

    @Test
    void aParkedWorkerIsWokenByATaskFromAnotherThread() throws InterruptedException {
        AtomicReference<Thread> workerThread = new AtomicReference<>();
        // Parks last an hour: the task can only run if the hand-over unparks the worker.
        Worker worker = startRecordingThread(Worker.builder("w-wake")
            .idleStrategy(new BackoffIdleStrategy(1, 1, HOUR_NS, HOUR_NS)), workerThread);
        for (int round = 0; round < 3; round++) {
            awaitState(workerThread.get(), WorkerTest::parked);
            CountDownLatch ran = new CountDownLatch(1);
            worker.execute(ran::countDown);
            await(ran);
        }
    }

    @Test
    void noWakeUpIsLostWhenTasksArriveAsTheWorkerGoesIdle() throws InterruptedException {
        Worker worker = start(Worker.builder("w-race").idleStrategy(new BackoffIdleStrategy(1, 1, HOUR_NS, HOUR_NS)));
        // Each hand-over races with the worker going from its last step to an hour-long park; a
        // random pause before it spreads the hand-overs across that transition.
        java.util.Random random = new java.util.Random(42);
        for (int round = 0; round < 2_000; round++) {
            CountDownLatch ran = new CountDownLatch(1);
            long pauseEnd = System.nanoTime() + random.nextInt(100_000);
            while (System.nanoTime() < pauseEnd) {
                Thread.onSpinWait();
            }
            worker.execute(ran::countDown);
            await(ran);
        }
    }

    @Test
    void closeWakesAParkedWorker() throws InterruptedException {
        AtomicReference<Thread> workerThread = new AtomicReference<>();
        Worker worker = startRecordingThread(Worker.builder("w-close-parked")
            .idleStrategy(new BackoffIdleStrategy(1, 1, HOUR_NS, HOUR_NS)), workerThread);
        awaitState(workerThread.get(), WorkerTest::parked);
        worker.close();
        assertFalse(workerThread.get().isAlive());
    }

    @Test
    void anExceptionInATaskIsReportedAndTheLoopContinues() throws InterruptedException {
        ConcurrentLinkedQueue<Throwable> reported = new ConcurrentLinkedQueue<>();
        Worker worker = start(Worker.builder("w-fail").errorHandler(reported::add));
        IllegalStateException boom = new IllegalStateException("boom");
        worker.execute(() -> {
            throw boom;
        });
        CountDownLatch after = new CountDownLatch(1);
        worker.execute(after::countDown);
        await(after);
        assertEquals(List.of(boom), List.copyOf(reported));
        assertEquals(1, worker.errorCount());
    }

    @Test
    void anExceptionInAPollerIsReportedAndTheLoopContinues() throws InterruptedException {
        ConcurrentLinkedQueue<Throwable> reported = new ConcurrentLinkedQueue<>();
        AtomicInteger polls = new AtomicInteger();
        Worker worker = start(Worker.builder("w-poll-fail").errorHandler(reported::add).onStart(w -> w.addPoller(() -> {
            if (polls.incrementAndGet() == 1) {
                throw new IllegalArgumentException("first poll fails");
            }
            return 0;
        })));
        CountDownLatch ranAfter = new CountDownLatch(1);
        worker.execute(ranAfter::countDown);
        await(ranAfter);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIVENESS_SECONDS);
        while (polls.get() < 3) {
            assertTrue(System.nanoTime() < deadline, "the poller is not polled any more after its failure");
            Thread.sleep(1);
        }
        assertEquals(1, reported.size());
        assertInstanceOf(IllegalArgumentException.class, reported.peek());
        assertEquals(1, worker.errorCount());
    }

    @Test
    void theDefaultErrorHandlerPrintsTheWorkerNameAndTheLoopContinues() throws InterruptedException {
        java.io.PrintStream stderr = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true));
        try {
            Worker worker = start(Worker.builder("w-default-handler"));
            worker.execute(() -> {
                throw new UnsupportedOperationException("printed");
            });
            CountDownLatch after = new CountDownLatch(1);
            worker.execute(after::countDown);
            await(after);
            assertEquals(1, worker.errorCount());
        } finally {
            System.setErr(stderr);
        }
        String printed = captured.toString();
        assertTrue(printed.contains("worker w-default-handler") && printed.contains("printed"), printed);
    }

    @Test
    void closeStopsTheThreadAndRunsOnStopOnIt() throws InterruptedException {
        AtomicReference<Thread> workerThread = new AtomicReference<>();
        AtomicReference<Thread> stopThread = new AtomicReference<>();
        Worker worker = start(Worker.builder("w-stop")
            .onStart(w -> workerThread.set(Thread.currentThread()))
            .onStop(w -> stopThread.set(Thread.currentThread())));
        worker.close();
        assertFalse(workerThread.get().isAlive());
        assertSame(workerThread.get(), stopThread.get());
        worker.close(); // idempotent
        RejectedExecutionException rejected = assertThrows(RejectedExecutionException.class, () -> worker.execute(() -> {
        }));
        assertTrue(rejected.getMessage().contains("w-stop is closed"), rejected.getMessage());
    }

    @Test
    void closeCalledOnTheWorkerStopsItAfterTheStep() throws InterruptedException {
        AtomicReference<Thread> workerThread = new AtomicReference<>();
        CountDownLatch stopped = new CountDownLatch(1);
        Worker worker = start(Worker.builder("w-self-close")
            .onStart(w -> workerThread.set(Thread.currentThread()))
            .onStop(w -> stopped.countDown()));
        worker.execute(worker::close);
        await(stopped);
        workerThread.get().join(TimeUnit.SECONDS.toMillis(LIVENESS_SECONDS));
        assertFalse(workerThread.get().isAlive());
    }

    @Test
    void everyTaskQueuedBeforeCloseRuns() {
        AtomicInteger ran = new AtomicInteger();
        Worker worker = start(Worker.builder("w-drain").idleStrategy(new BackoffIdleStrategy(1, 1, HOUR_NS, HOUR_NS)));
        int tasks = 5_000;
        for (int i = 0; i < tasks; i++) {
            // Each task also queues a continuation: those run too.
            worker.execute(() -> {
                ran.incrementAndGet();
                worker.execute(ran::incrementAndGet);
            });
        }
        worker.close();
        assertEquals(2 * tasks, ran.get());
    }

    @Test
    void aTaskRacingWithCloseEitherRunsOrIsRejected() throws InterruptedException {
        for (int round = 0; round < 20; round++) {
            Worker worker = Worker.builder("w-close-race-" + round).start();
            AtomicInteger accepted = new AtomicInteger();
            AtomicInteger ran = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> submitters = new ArrayList<>();
            for (int s = 0; s < 2; s++) {
                Thread submitter = new Thread(() -> {
                    try {
                        go.await();
                        while (true) {
                            worker.execute(ran::incrementAndGet);
                            accepted.incrementAndGet();
                        }
                    } catch (RejectedExecutionException closed) {
                        // the worker closed: this submitter is done
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                submitter.start();
                submitters.add(submitter);
            }
            go.countDown();
            while (accepted.get() < 1_000) {
                Thread.onSpinWait();
            }
            worker.close();
            for (Thread submitter : submitters) {
                submitter.join();
            }
            assertEquals(accepted.get(), ran.get(), "round " + round);
        }
    }

    @Test
    void aFailingOnStartFailsTheStartAndStillRunsOnStop() {
        AtomicReference<Thread> workerThread = new AtomicReference<>();
        AtomicBoolean stopRan = new AtomicBoolean();
        IllegalStateException failure = assertThrows(IllegalStateException.class, () -> Worker.builder("w-bad-start")
            .onStart(w -> {
                workerThread.set(Thread.currentThread());
                throw new IllegalArgumentException("cannot open port");
            })
            .onStop(w -> stopRan.set(true))
            .start());
        assertInstanceOf(IllegalArgumentException.class, failure.getCause());
        assertTrue(failure.getMessage().contains("w-bad-start failed to start"), failure.getMessage());
        assertTrue(stopRan.get());
        assertFalse(workerThread.get().isAlive());
    }

    @Test
    void thePinnerRunsFirstOnTheWorkerThreadWithItsCpu() {
        List<String> events = new ArrayList<>();
        AtomicReference<Thread> pinnedThread = new AtomicReference<>();
        AtomicReference<Thread> workerThread = new AtomicReference<>();
        start(Worker.builder("w-pin")
            .pinTo(1, cpu -> {
                pinnedThread.set(Thread.currentThread());
                events.add("pin " + cpu);
            })
            .onStart(w -> {
                workerThread.set(Thread.currentThread());
                events.add("start");
            }));
        // start() returned after onStart: its effects are visible here.
        assertEquals(List.of("pin 1", "start"), events);
        assertSame(workerThread.get(), pinnedThread.get());
    }

    @Test
    void addPollerOffTheWorkerThreadIsRefused() {
        Worker worker = start(Worker.builder("w-confined"));
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> worker.addPoller(() -> 0));
        assertTrue(refused.getMessage().contains("thread of worker w-confined"), refused.getMessage());
    }

    @Test
    void pollersRegisteredOnStartArePolledOnTheWorkerThread() throws InterruptedException {
        AtomicReference<Thread> workerThread = new AtomicReference<>();
        AtomicReference<Thread> polledOn = new AtomicReference<>();
        CountDownLatch polled = new CountDownLatch(1);
        start(Worker.builder("w-poller").onStart(w -> {
            workerThread.set(Thread.currentThread());
            w.addPoller(() -> {
                polledOn.set(Thread.currentThread());
                polled.countDown();
                return 0;
            });
        }));
        await(polled);
        assertSame(workerThread.get(), polledOn.get());
    }

    @Test
    void anInterruptIsReportedAndIgnored() throws InterruptedException {
        ConcurrentLinkedQueue<Throwable> reported = new ConcurrentLinkedQueue<>();
        AtomicReference<Thread> workerThread = new AtomicReference<>();
        Worker worker = startRecordingThread(Worker.builder("w-interrupt").errorHandler(reported::add), workerThread);
        awaitState(workerThread.get(), WorkerTest::parked);
        workerThread.get().interrupt();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIVENESS_SECONDS);
        while (reported.isEmpty()) {
            assertTrue(System.nanoTime() < deadline, "the interrupt was not reported");
            Thread.sleep(1);
        }
        awaitState(workerThread.get(), WorkerTest::parked);
        CountDownLatch ran = new CountDownLatch(1);
        worker.execute(ran::countDown);
        await(ran);
        // Had the interrupt not been cleared, every idle step since would have reported it again.
        assertEquals(1, reported.size());
        assertTrue(reported.peek().getMessage().contains("interrupt is ignored"), reported.peek().getMessage());
    }

    @Test
    void submitCompletesOnTheWorkerEvenWhenTheStageCompletesElsewhere() throws InterruptedException {
        AtomicReference<Thread> workerThread = new AtomicReference<>();
        Worker worker = startRecordingThread(Worker.builder("w-submit"), workerThread);
        CompletableFuture<String> remote = new CompletableFuture<>();
        CountDownLatch issued = new CountDownLatch(1);
        CompletableFuture<String> result = worker.submit(() -> {
            issued.countDown();
            return remote;
        });
        AtomicReference<Thread> completedOn = new AtomicReference<>();
        CountDownLatch completed = new CountDownLatch(1);
        result.whenComplete((value, failure) -> {
            completedOn.set(Thread.currentThread());
            completed.countDown();
        });
        await(issued);
        remote.complete("value"); // completed by the test thread, not the worker
        await(completed);
        assertEquals("value", result.join());
        assertSame(workerThread.get(), completedOn.get());
    }

    @Test
    void submitFailsTheFutureWhenTheOperationThrowsOrReturnsNull() {
        Worker worker = start(Worker.builder("w-submit-fail"));
        IllegalArgumentException bad = new IllegalArgumentException("bad operation");
        CompletableFuture<Object> thrown = worker.submit(() -> {
            throw bad;
        });
        assertSame(bad, assertThrows(IllegalArgumentException.class, () -> Blocking.await(thrown)));
        CompletableFuture<Object> nulled = worker.submit(() -> null);
        NullPointerException npe = assertThrows(NullPointerException.class, () -> Blocking.await(nulled));
        assertTrue(npe.getMessage().contains("returned null instead of a CompletionStage"), npe.getMessage());
        assertEquals(0, worker.errorCount(), "a failed operation is the caller's outcome, not a worker error");
    }

    @Test
    void aFullInboxRejectsAWorkerCallerAndMakesOtherThreadsWait() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch blocked = new CountDownLatch(1);
        Worker busy = start(Worker.builder("w-full").inboxCapacity(2));
        Worker caller = start(Worker.builder("w-caller"));
        busy.execute(() -> {
            blocked.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        await(blocked);
        AtomicInteger ran = new AtomicInteger();
        busy.execute(ran::incrementAndGet);
        busy.execute(ran::incrementAndGet); // the inbox (2 tasks) is full now

        AtomicReference<RejectedExecutionException> rejected = new AtomicReference<>();
        CountDownLatch tried = new CountDownLatch(1);
        caller.execute(() -> {
            try {
                busy.execute(ran::incrementAndGet);
            } catch (RejectedExecutionException e) {
                rejected.set(e);
            }
            tried.countDown();
        });
        await(tried);
        assertTrue(rejected.get().getMessage().contains("must not block"), rejected.get().getMessage());

        CountDownLatch handedOver = new CountDownLatch(1);
        Thread outsider = new Thread(() -> {
            busy.execute(ran::incrementAndGet); // waits for space
            handedOver.countDown();
        });
        outsider.start();
        awaitState(outsider, WorkerTest::parked); // waiting, not failing
        release.countDown();
        await(handedOver);
        outsider.join();
        busy.close();
        assertEquals(3, ran.get());
    }

    @Test
    void builderRejectsBadSettings() {
        assertThrows(IllegalArgumentException.class, () -> Worker.builder(" "));
        Worker.Builder builder = Worker.builder("w-bad");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> builder.inboxCapacity(1)).getMessage()
            .contains("2 .. 2^30"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> builder.closeTimeout(Duration.ZERO)).getMessage()
            .contains("positive"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> builder.pinTo(-1, cpu -> {
        })).getMessage().contains(">= 0"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> builder.index(-1)).getMessage().contains(">= 0"));
    }
}
