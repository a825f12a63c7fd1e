package io.farm.core.tx.history;

import io.farm.core.addr.GlobalAddress;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HistoryRecorderTest {
    private static final int THREADS = 4;

    @Test
    void everyTransactionRecordedByConcurrentThreadsIsInTheHistory() throws InterruptedException {
        HistoryRecorder recorder = new HistoryRecorder(10_000);
        int perThread = 5_000;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            long object = GlobalAddress.of(1, 64L * t);
            long firstId = (long) t * perThread;
            threads.add(Thread.ofPlatform().start(() -> {
                awaitQuietly(go);
                for (int i = 0; i < perThread; i++) {
                    recorder.record(CommittedTransaction.builder(firstId + i, i)
                        .write(object, i, i + 1).commit(i));
                }
            }));
        }
        go.countDown();
        for (Thread thread : threads) {
            thread.join();
        }

        History history = recorder.history();

        assertTrue(history.complete());
        assertEquals(THREADS * perThread, history.transactions().size());
        assertEquals(THREADS * perThread,
            history.transactions().stream().mapToLong(CommittedTransaction::id).distinct().count());
        // Each thread wrote one object's versions in order: a clean history.
        assertTrue(SerializabilityChecker.serializable(new InitialVersions()).check(history).valid());
    }

    @Test
    void aSnapshotDuringRecordingHoldsOnlyWholeRecords() throws InterruptedException {
        HistoryRecorder recorder = new HistoryRecorder(50_000);
        Thread writer = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 50_000; i++) {
                recorder.record(CommittedTransaction.builder(i, i).read(GlobalAddress.of(1, 0), 0).commit(i));
            }
        });
        int previous = 0;
        while (writer.isAlive()) {
            List<CommittedTransaction> seen = recorder.history().transactions();
            assertTrue(seen.size() >= previous, "a later snapshot lost records");
            for (int i = 0; i < seen.size(); i++) {
                assertEquals(i, seen.get(i).id());
                assertEquals(1, seen.get(i).readCount());
            }
            previous = seen.size();
        }
        writer.join();
        assertEquals(50_000, recorder.history().transactions().size());
    }

    @Test
    void recordsBeyondAThreadsCapacityAreCountedAsDropped() {
        HistoryRecorder recorder = new HistoryRecorder(3);
        for (int i = 0; i < 5; i++) {
            recorder.record(CommittedTransaction.builder(i, 0).commit(0));
        }

        History history = recorder.history();

        assertEquals(List.of(0L, 1L, 2L), history.transactions().stream().map(CommittedTransaction::id).toList());
        assertEquals(2, history.dropped());
        assertFalse(history.complete());
    }

    @Test
    void aCapacityBeyondOneChunkKeepsEveryRecordUpToIt() {
        int capacity = ThreadHistory.CHUNK * 2 + 5;
        HistoryRecorder recorder = new HistoryRecorder(capacity);
        for (int i = 0; i < capacity + 1; i++) {
            recorder.record(CommittedTransaction.builder(i, 0).commit(0));
        }

        History history = recorder.history();

        assertEquals(capacity, history.transactions().size());
        assertEquals(capacity - 1, history.transactions().get(capacity - 1).id());
        assertEquals(1, history.dropped());
    }

    @Test
    void badArgumentsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> new HistoryRecorder(0));
        assertThrows(NullPointerException.class, () -> new HistoryRecorder(1).record(null));
        assertThrows(IllegalArgumentException.class, () -> new History(List.of(), -1));
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
