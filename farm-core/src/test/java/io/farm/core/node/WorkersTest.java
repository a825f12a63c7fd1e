package io.farm.core.node;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WorkersTest {
    private static final Duration LIVENESS = Duration.ofSeconds(WorkerTest.LIVENESS_SECONDS);

    /** Starts {@code count} workers recording their threads and the threads their onStop ran on. */
    private static Workers startRecording(int count, AtomicReferenceArray<Thread> threads,
                                          AtomicReferenceArray<Thread> stopThreads) {
        return Workers.start(count, i -> Worker.builder("n0-w" + i)
            .onStart(w -> threads.set(w.index(), Thread.currentThread()))
            .onStop(w -> stopThreads.set(w.index(), Thread.currentThread())));
    }

    @Test
    void workersAreNumberedAndRunTheirTasks() throws InterruptedException {
        AtomicReferenceArray<Thread> threads = new AtomicReferenceArray<>(3);
        try (Workers workers = startRecording(3, threads, new AtomicReferenceArray<>(3))) {
            assertEquals(3, workers.count());
            for (int i = 0; i < 3; i++) {
                assertEquals(i, workers.worker(i).index());
                assertEquals("n0-w" + i, workers.worker(i).name());
                AtomicReferenceArray<Thread> ranOn = new AtomicReferenceArray<>(1);
                CountDownLatch done = new CountDownLatch(1);
                workers.execute(i, () -> {
                    ranOn.set(0, Thread.currentThread());
                    done.countDown();
                });
                WorkerTest.await(done);
                assertSame(threads.get(i), ranOn.get(0));
            }
            assertThrows(IndexOutOfBoundsException.class, () -> workers.worker(3));
        }
    }

    @Test
    void nextVisitsEveryWorkerInTurn() {
        try (Workers workers = Workers.start(3, i -> Worker.builder("rr-" + i))) {
            Worker first = workers.next();
            Set<Worker> seen = new HashSet<>();
            seen.add(first);
            seen.add(workers.next());
            seen.add(workers.next());
            assertEquals(3, seen.size());
            assertSame(first, workers.next());
        }
    }

    @Test
    void submitFromAWorkerStaysOnThatWorker() throws TimeoutException {
        try (Workers workers = Workers.start(4, i -> Worker.builder("stay-" + i))) {
            for (int i = 0; i < 4; i++) {
                Worker issuer = workers.worker(i);
                CompletableFuture<Worker> ranOn = workers.submit(i, () -> workers.submit(
                    () -> CompletableFuture.completedFuture(Worker.current())));
                assertSame(issuer, Blocking.await(ranOn, LIVENESS));
            }
        }
    }

    @Test
    void submitFromOutsideRunsOnAWorkerAndCompletesOnIt() throws TimeoutException {
        try (Workers workers = Workers.start(2, i -> Worker.builder("out-" + i))) {
            Set<Worker> used = ConcurrentHashMap.newKeySet();
            for (int i = 0; i < 4; i++) {
                CompletableFuture<Worker> result = workers.submit(() -> CompletableFuture.completedFuture(Worker.current()));
                Worker ranOn = Blocking.await(result, LIVENESS);
                assertSame(workers.worker(ranOn.index()), ranOn);
                used.add(ranOn);
            }
            assertEquals(2, used.size(), "round robin uses every worker");
        }
    }

    @Test
    void closeStopsEveryWorkerAndRunsOnStopOnItsThread() {
        AtomicReferenceArray<Thread> threads = new AtomicReferenceArray<>(2);
        AtomicReferenceArray<Thread> stopThreads = new AtomicReferenceArray<>(2);
        Workers workers = startRecording(2, threads, stopThreads);
        workers.close();
        for (int i = 0; i < 2; i++) {
            assertFalse(threads.get(i).isAlive());
            assertSame(threads.get(i), stopThreads.get(i));
        }
        workers.close(); // idempotent
    }

    @Test
    void aWorkerFailingToStartClosesTheOnesStartedBefore() {
        AtomicReferenceArray<Thread> threads = new AtomicReferenceArray<>(3);
        AtomicReferenceArray<Thread> stopThreads = new AtomicReferenceArray<>(3);
        IllegalStateException failure = assertThrows(IllegalStateException.class, () -> Workers.start(3, i ->
            Worker.builder("fail-" + i)
                .onStart(w -> {
                    threads.set(i, Thread.currentThread());
                    if (i == 1) {
                        throw new IllegalStateException("no port for worker 1");
                    }
                })
                .onStop(w -> stopThreads.set(i, Thread.currentThread()))));
        assertTrue(failure.getMessage().contains("fail-1 failed to start"), failure.getMessage());
        assertFalse(threads.get(0).isAlive());
        assertSame(threads.get(0), stopThreads.get(0));
        assertEquals(null, threads.get(2), "no worker is started after the failing one");
    }

    @Test
    void workerCountOutOfRangeIsRejected() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Workers.start(0, i -> Worker.builder("x")))
            .getMessage().contains("1..64"));
        assertThrows(IllegalArgumentException.class, () -> Workers.start(65, i -> Worker.builder("x")));
    }
}
