package io.farm.core.tx;

import io.farm.core.addr.GlobalAddress;
import io.farm.core.addr.RegionId;
import io.farm.core.object.FatPointer;
import io.farm.core.object.ObjectBuffer;
import io.farm.core.object.ObjectFreedException;
import io.farm.core.object.ObjectLayout;
import io.farm.core.testing.Liveness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Transactions on a 3-node embedded cluster (local fabric), 2 backups per region. */
class TransactionsTest {
    @TempDir
    static Path dataDir;

    private static TxCluster cluster;

    @BeforeAll
    static void start() {
        cluster = new TxCluster("transactions", 3, 2, 2, dataDir);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    private static byte[] bytes(long seed, int size) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) (seed * 31 + i);
        }
        return bytes;
    }

    private static byte[] longBytes(long value) {
        return ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(value).array();
    }

    private static long longOf(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder()).getLong();
    }

    @Test
    void aCommittedWriteIsReadBackAndReachesEveryBackupAtTruncation() throws Exception {
        for (int n = 0; n < 3; n++) {
            int node = n;
            for (int size : new int[] {8, 48, 49, 500, 3000}) {
                byte[] first = bytes(node, size);
                long address = cluster.create(node, first);
                assertEquals(node, cluster.farm(0).transactions().primaryOf(address));
                byte[] second = bytes(node + 100, size);
                int reader = (node + 1) % 3;
                cluster.execute(reader, 1, tx -> tx.txRead(address, size).thenApply(buffer -> {
                    tx.txWrite(buffer, second);
                    return null;
                }));
                assertArrayEquals(second, cluster.read((node + 2) % 3, address, size));
                assertEquals(ObjectLayout.UNLOCKED, ObjectLayout.lockMode(cluster.versionWord(node, address)));
                for (int backup : cluster.farm(0).transactions().backupsOf(address)) {
                    Liveness.awaitCondition("backup " + backup + " has the committed value",
                        () -> Arrays.equals(second, cluster.copyAt(backup, address, size))
                            && cluster.versionWord(backup, address) == cluster.versionWord(node, address));
                }
            }
        }
    }

    @Test
    void ofTwoConflictingWritersExactlyOneCommits() throws Exception {
        for (int round = 0; round < 20; round++) {
            long address = cluster.create(round % 3, longBytes(0));
            // Both read the same version on different coordinators, then both commit.
            CompletableFuture<Transaction> first = new CompletableFuture<>();
            CompletableFuture<Transaction> second = new CompletableFuture<>();
            prepareIncrement(0, address, first);
            prepareIncrement(1, address, second);
            Transaction a = first.get();
            Transaction b = second.get();
            CompletableFuture<Throwable> outcomeA = commit(0, a);
            CompletableFuture<Throwable> outcomeB = commit(1, b);
            Throwable failureA = outcomeA.get();
            Throwable failureB = outcomeB.get();
            assertTrue(failureA == null ^ failureB == null, "exactly one commits: " + failureA + " / " + failureB);
            TransactionAbortedException abort = assertInstanceOf(TransactionAbortedException.class,
                failureA != null ? failureA : failureB);
            assertTrue(abort.reason() == AbortReason.CONFLICT || abort.reason() == AbortReason.LOCK_HELD, abort::toString);
            assertEquals(address, abort.address());
            assertEquals(1, longOf(cluster.read(2, address, 8)));
            assertEquals(ObjectLayout.UNLOCKED, ObjectLayout.lockMode(cluster.versionWord(round % 3, address)));
        }
    }

    private void prepareIncrement(int node, long address, CompletableFuture<Transaction> prepared) throws Exception {
        cluster.on(node, 0, w -> {
            Transaction tx = cluster.farm(node).transactions().txCreate(w);
            return tx.txRead(address, 8).thenApply(buffer -> {
                tx.txWrite(buffer, longBytes(longOf(buffer.toByteArray()) + 1));
                prepared.complete(tx);
                return null;
            });
        });
    }

    private CompletableFuture<Throwable> commit(int node, Transaction tx) throws Exception {
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        cluster.on(node, 0, w -> {
            tx.txCommit().whenComplete((ignored, failure) -> outcome.complete(failure));
            return CompletableFuture.completedFuture(null);
        });
        return outcome;
    }

    @Test
    void aReadOnlyTransactionFailsValidationWhenAnObjectItReadChanged() throws Exception {
        long x = cluster.create(1, longBytes(1));
        long y = cluster.create(2, longBytes(2));
        CompletableFuture<Transaction> prepared = new CompletableFuture<>();
        cluster.on(0, 0, w -> {
            Transaction tx = cluster.farm(0).transactions().txCreate(w);
            return tx.txRead(x, 8).thenCompose(ignored -> tx.txRead(y, 8)).thenApply(ignored -> prepared.complete(tx));
        });
        cluster.execute(2, 1, tx -> tx.txRead(y, 8).thenApply(buffer -> {
            tx.txWrite(buffer, longBytes(20));
            return null;
        }));
        Throwable failure = commit(0, prepared.get()).get();
        TransactionAbortedException abort = assertInstanceOf(TransactionAbortedException.class, failure);
        assertEquals(AbortReason.VALIDATION_FAILED, abort.reason());
        assertEquals(y, abort.address());
    }

    @Test
    void concurrentIncrementsFromEveryWorkerOfEveryNodeAreNeverLost() throws Exception {
        long counter = cluster.create(1, longBytes(0));
        int perWorker = 100;
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (int node = 0; node < 3; node++) {
            for (int worker = 0; worker < 2; worker++) {
                int n = node;
                runs.add(cluster.cluster().node(node).submit(worker, w -> incrementLoop(n, w, counter, perWorker)));
            }
        }
        for (CompletableFuture<Void> run : runs) {
            Liveness.await(run);
        }
        assertEquals(6L * perWorker, longOf(cluster.read(0, counter, 8)));
    }

    private static CompletionStage<Void> incrementLoop(int node, io.farm.core.cluster.NodeWorker worker, long counter,
                                                       int remaining) {
        if (remaining == 0) {
            return CompletableFuture.completedFuture(null);
        }
        return cluster.farm(node).transactions().execute(worker, 1000, tx -> tx.txRead(counter, 8).thenApply(buffer -> {
            tx.txWrite(buffer, longBytes(longOf(buffer.toByteArray()) + 1));
            return null;
        })).thenCompose(ignored -> incrementLoop(node, worker, counter, remaining - 1));
    }

    @Test
    void aTransferBetweenTwoNodesObjectsMovesValueAtomically() throws Exception {
        long from = cluster.create(0, longBytes(100));
        long to = cluster.create(2, longBytes(0));
        cluster.execute(1, 0, tx -> tx.txRead(from, 8).thenCompose(a -> tx.txRead(to, 8).thenApply(b -> {
            tx.txWrite(a, longBytes(longOf(a.toByteArray()) - 30));
            tx.txWrite(b, longBytes(longOf(b.toByteArray()) + 30));
            return null;
        })));
        assertEquals(70, longOf(cluster.read(2, from, 8)));
        assertEquals(30, longOf(cluster.read(0, to, 8)));
    }

    @Test
    void aSingleMachineTransactionSendsOnlyCommitBackupRecords() throws Exception {
        long a = cluster.create(1, longBytes(5));
        long b = cluster.create(1, longBytes(6));
        TxStats stats = cluster.farm(1).transactions().stats();
        long locks = stats.sent(TxRecordDescriptor.LOCK);
        long backups = stats.sent(TxRecordDescriptor.COMMIT_BACKUP);
        long primaries = stats.sent(TxRecordDescriptor.COMMIT_PRIMARY);
        long validations = stats.validationReads();
        cluster.execute(1, 0, tx -> tx.txRead(a, 8).thenCompose(x -> tx.txRead(b, 8).thenApply(y -> {
            tx.txWrite(x, longBytes(50));
            tx.txWrite(y, longBytes(60));
            return null;
        })));
        // Two backups: one COMMIT-BACKUP record each; no LOCK, no COMMIT-PRIMARY, no validation read.
        assertEquals(2, stats.sent(TxRecordDescriptor.COMMIT_BACKUP) - backups);
        assertEquals(0, stats.sent(TxRecordDescriptor.LOCK) - locks);
        assertEquals(0, stats.sent(TxRecordDescriptor.COMMIT_PRIMARY) - primaries);
        assertEquals(0, stats.validationReads() - validations);
        assertEquals(50, longOf(cluster.read(0, a, 8)));
        assertEquals(60, longOf(cluster.read(2, b, 8)));
    }

    @Test
    void aFreedObjectAbortsReadersAndRefusesItsFatPointer() throws Exception {
        long address = cluster.create(2, bytes(3, 100));
        FatPointer pointer = cluster.execute(0, 0, tx -> tx.txRead(address, 100).thenApply(ObjectBuffer::fatPointer));
        cluster.execute(1, 0, tx -> tx.txRead(address, 100).thenApply(buffer -> {
            tx.txFree(buffer);
            return null;
        }));
        ExecutionException read = assertThrows(ExecutionException.class,
            () -> cluster.execute(0, 0, tx -> tx.txRead(pointer)));
        TransactionAbortedException abort = assertInstanceOf(TransactionAbortedException.class, read.getCause());
        assertEquals(AbortReason.OBJECT_FREED, abort.reason());
        assertInstanceOf(ObjectFreedException.class, abort.getCause());
        for (int backup : cluster.farm(0).transactions().backupsOf(address)) {
            Liveness.awaitCondition("backup " + backup + " has the object freed",
                () -> cluster.versionWord(backup, address) == cluster.versionWord(2, address));
        }
    }

    @Test
    void anAbortedTransactionLeavesNoLockNoWriteAndFreesWhatItAllocated() throws Exception {
        long x = cluster.create(0, longBytes(1));
        long y = cluster.create(1, longBytes(2));
        long[] allocated = new long[1];
        CompletableFuture<Transaction> prepared = new CompletableFuture<>();
        cluster.on(2, 0, w -> {
            Transaction tx = cluster.farm(2).transactions().txCreate(w);
            return tx.txRead(x, 8).thenCompose(a -> tx.txRead(y, 8).thenCompose(b -> tx.txAlloc(64, x).thenApply(c -> {
                tx.txWrite(a, longBytes(10));
                tx.txWrite(b, longBytes(20));
                allocated[0] = c.address();
                return prepared.complete(tx);
            })));
        });
        // A conflicting commit of y makes the prepared transaction's LOCK fail at y's primary after x's locked.
        cluster.execute(1, 1, tx -> tx.txRead(y, 8).thenApply(b -> {
            tx.txWrite(b, longBytes(3));
            return null;
        }));
        Throwable failure = commit(2, prepared.get()).get();
        assertEquals(AbortReason.CONFLICT, assertInstanceOf(TransactionAbortedException.class, failure).reason());
        assertEquals(1, longOf(cluster.read(1, x, 8)));
        assertEquals(3, longOf(cluster.read(0, y, 8)));
        Liveness.awaitCondition("x unlocked after the ABORT record",
            () -> ObjectLayout.lockMode(cluster.versionWord(0, x)) == ObjectLayout.UNLOCKED);
        ExecutionException gone = assertThrows(ExecutionException.class, () -> cluster.read(0, allocated[0], 64));
        assertEquals(AbortReason.OBJECT_FREED,
            assertInstanceOf(TransactionAbortedException.class, gone.getCause()).reason());
    }

    @Test
    void badInputIsRefusedWithWhatIsAccepted() throws Exception {
        long x = cluster.create(1, longBytes(7));
        long other = cluster.create(2, longBytes(8));
        String message = cluster.on(0, 0, w -> {
            Transaction tx = cluster.farm(0).transactions().txCreate(w);
            return tx.txRead(x, 8).thenCompose(buffer -> {
                List<String> messages = new ArrayList<>();
                messages.add(assertThrows(IllegalArgumentException.class, () -> tx.txWrite(buffer, new byte[9])).getMessage());
                messages.add(assertThrows(IllegalArgumentException.class, () -> tx.txRead(x, 16)).getMessage());
                messages.add(assertThrows(IllegalArgumentException.class,
                    () -> tx.txRead(GlobalAddress.of(RegionId.system(0, 0), 64), 8)).getMessage());
                messages.add(assertThrows(IllegalArgumentException.class,
                    () -> tx.txRead(GlobalAddress.of(0, 64), 8)).getMessage());
                messages.add(assertThrows(IllegalArgumentException.class, () -> tx.txAlloc(0, 0)).getMessage());
                return tx.txRead(other, 8).thenCompose(otherBuffer -> {
                    ObjectBuffer foreign = ObjectBuffer.of(otherBuffer.address(), 8, otherBuffer.stored());
                    messages.add(assertThrows(IllegalArgumentException.class,
                        () -> tx.txWrite(foreign, longBytes(1))).getMessage());
                    tx.txWrite(buffer, longBytes(70));
                    return tx.txCommit().thenApply(ignored -> {
                        messages.add(assertThrows(IllegalStateException.class, tx::txCommit).getMessage());
                        messages.add(assertThrows(IllegalStateException.class, () -> tx.txRead(x, 8)).getMessage());
                        return String.join("\n", messages);
                    });
                });
            });
        });
        String[] lines = message.split("\n");
        assertTrue(lines[0].contains("9 bytes") && lines[0].contains("8 bytes"), lines[0]);
        assertTrue(lines[1].contains("size 16") && lines[1].contains("size 8"), lines[1]);
        assertTrue(lines[2].contains("no data region"), lines[2]);
        assertTrue(lines[3].contains("region 0"), lines[3]);
        assertTrue(lines[4].contains("accepted 1.."), lines[4]);
        assertTrue(lines[5].contains("did not read it"), lines[5]);
        assertTrue(lines[6].contains("committed") && lines[6].contains("txCreate"), lines[6]);
        assertTrue(lines[7].contains("committed"), lines[7]);
        assertEquals(70, longOf(cluster.read(2, x, 8)));

        IllegalStateException offWorker = assertThrows(IllegalStateException.class,
            () -> cluster.farm(0).transactions().txCreate(cluster.cluster().node(0).worker(0)));
        assertTrue(offWorker.getMessage().contains("worker"), offWorker.getMessage());
        IllegalStateException blockingOnWorker = cluster.on(0, 1, w -> CompletableFuture.completedFuture(
            assertThrows(IllegalStateException.class,
                () -> cluster.farm(0).transactions().executeBlocking(0, tx -> TxCluster.completed(null)))));
        assertTrue(blockingOnWorker.getMessage().contains("CompletionStage"), blockingOnWorker.getMessage());
        assertEquals(70L, (long) cluster.farm(1).transactions().executeBlocking(1,
            tx -> tx.txRead(x, 8).thenApply(buffer -> longOf(buffer.toByteArray()))));
    }

    @Test
    void executeGivesUpAfterItsAttemptsWithTheLastReason() throws Exception {
        long x = cluster.create(0, longBytes(1));
        int[] attempts = new int[1];
        ExecutionException failed = assertThrows(ExecutionException.class, () -> cluster.on(1, 0,
            w -> cluster.farm(1).transactions().execute(w, 3, tx -> tx.txRead(x, 8).thenCompose(buffer -> {
                attempts[0]++;
                tx.txWrite(buffer, longBytes(2));
                // Another transaction commits x between this one's read and its commit, every time.
                return cluster.farm(1).transactions().execute(w, tx2 -> tx2.txRead(x, 8).thenApply(b2 -> {
                    tx2.txWrite(b2, longBytes(longOf(b2.toByteArray()) + 1));
                    return null;
                }));
            }))));
        TransactionAbortedException abort = assertInstanceOf(TransactionAbortedException.class, failed.getCause());
        assertEquals(AbortReason.CONFLICT, abort.reason());
        assertTrue(abort.getMessage().contains("after 3 attempts"), abort.getMessage());
        assertEquals(3, attempts[0]);
        assertNotEquals(0, cluster.farm(1).transactions().stats().aborted(AbortReason.CONFLICT));
        assertFalse(cluster.farm(1).transactions().stats().committed() == 0);
    }

    @Test
    void anArrayIsReadWithOneFabricReadPerRangeAndFreedAsAWhole() throws Exception {
        int elementSize = 100;
        long array = cluster.execute(1, 0, tx -> tx.txAllocArray(elementSize, 5, 0).thenApply(elements -> {
            for (int i = 0; i < elements.size(); i++) {
                tx.txWrite(elements.get(i), bytes(i, elementSize));
            }
            return elements.get(0).address();
        }));
        List<ObjectBuffer> range = cluster.on(0, 0, w -> {
            var reads = cluster.farm(0).reads();
            var operation = reads.lockFreeStart(w);
            return reads.lockFreeReadArray(operation, array, elementSize, 1, 3).whenComplete((ignored, failure) ->
                reads.lockFreeEnd(operation));
        });
        assertEquals(3, range.size());
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(bytes(i + 1, elementSize), range.get(i).toByteArray());
            assertEquals(1, range.get(i).reads());
        }
        byte[] second = cluster.execute(2, 1, tx -> tx.txReadArray(array, elementSize, 0, 5).thenApply(elements -> {
            tx.txWrite(elements.get(2), bytes(42, elementSize));
            return elements.get(1).toByteArray();
        }));
        assertArrayEquals(bytes(1, elementSize), second);
        assertArrayEquals(bytes(42, elementSize), cluster.read(0, array + 2L * ObjectLayout.storedSize(elementSize),
            elementSize));

        FatPointer third = range.get(1).fatPointer();
        cluster.execute(0, 0, tx -> tx.txReadArray(array, elementSize, 0, 5).thenApply(elements -> {
            assertThrows(IllegalArgumentException.class, () -> tx.txFree(elements.get(3)));
            tx.txFreeArray(elements);
            return null;
        }));
        ExecutionException freed = assertThrows(ExecutionException.class, () -> cluster.execute(2, 0, tx -> tx.txRead(third)));
        assertEquals(AbortReason.OBJECT_FREED,
            assertInstanceOf(TransactionAbortedException.class, freed.getCause()).reason());
        ExecutionException whole = assertThrows(ExecutionException.class,
            () -> cluster.execute(2, 0, tx -> tx.txReadArray(array, elementSize, 0, 5)));
        assertEquals(AbortReason.OBJECT_FREED,
            assertInstanceOf(TransactionAbortedException.class, whole.getCause()).reason());
        IllegalArgumentException tooLarge = cluster.on(0, 0, w -> {
            Transaction tx = cluster.farm(0).transactions().txCreate(w);
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> tx.txAllocArray(1000, 2000, 0));
            tx.txAbort();
            return CompletableFuture.completedFuture(refused);
        });
        assertTrue(tooLarge.getMessage().contains("at most"), tooLarge.getMessage());
    }

    @Test
    void aMalformedLockRecordIsRefusedAndChangesNothing() throws Exception {
        long x = cluster.create(1, longBytes(9));
        long before = cluster.versionWord(1, x);
        long errors = cluster.cluster().node(1).workers().worker(0).errorCount();
        long late = cluster.farm(0).transactions().stats().lateReplies();
        cluster.on(0, 0, w -> {
            java.lang.foreign.MemorySegment record = java.lang.foreign.Arena.ofAuto().allocate(64, 8);
            // A header announcing three entries, and none behind it.
            TxRecordDescriptor.putHeader(record, 0, 12345, 0, 3);
            w.messenger().sendLog(1, TxRecordDescriptor.LOCK, record, 0, TxRecordDescriptor.HEADER_LENGTH);
            return CompletableFuture.completedFuture(null);
        });
        Liveness.awaitCondition("the malformed record is reported and answered",
            () -> cluster.cluster().node(1).workers().worker(0).errorCount() > errors
                && cluster.farm(0).transactions().stats().lateReplies() > late);
        assertEquals(before, cluster.versionWord(1, x));
        assertEquals(9, longOf(cluster.read(2, x, 8)));
    }

    @Test
    void aLargeArrayIsAllocatedInSeveralCommitsAndReadsAsZeros() throws Exception {
        int elementSize = 100;
        int count = 4000;
        TxStats stats = cluster.farm(2).transactions().stats();
        long commits = stats.committed();
        long array = cluster.on(2, 0, w -> cluster.farm(2).transactions().allocateArray(w, elementSize, count, 0));
        assertTrue(stats.committed() - commits > 1, "more than one commit: " + (stats.committed() - commits));
        List<ObjectBuffer> tail = cluster.on(1, 0, w -> {
            var reads = cluster.farm(1).reads();
            var operation = reads.lockFreeStart(w);
            return reads.lockFreeReadArray(operation, array, elementSize, count - 10, 10).whenComplete((ignored, failure) ->
                reads.lockFreeEnd(operation));
        });
        for (ObjectBuffer element : tail) {
            assertArrayEquals(new byte[elementSize], element.toByteArray());
        }
        byte[] written = cluster.execute(0, 0, tx -> tx.txReadArray(array, elementSize, 1234, 1).thenCompose(elements -> {
            tx.txWrite(elements.get(0), bytes(5, elementSize));
            return TxCluster.completed(bytes(5, elementSize));
        }));
        assertArrayEquals(written, cluster.read(1, array + 1234L * ObjectLayout.storedSize(elementSize), elementSize));
    }
}
