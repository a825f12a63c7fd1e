package io.farm.core.tx;

import io.farm.core.cluster.NodeWorker;
import io.farm.core.object.FatPointer;
import io.farm.core.object.LockFreeOperation;
import io.farm.core.object.LockFreeReadTimeoutException;
import io.farm.core.object.LockFreeReads;
import io.farm.core.object.ObjectBuffer;
import io.farm.core.object.ObjectFreedException;
import io.farm.core.testing.Liveness;
import io.farm.core.testing.ShmTempDirs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lock-free reads ({@link LockFreeReads}) and transactional reads racing transactions that commit
 * new contents, free objects and allocate others in their place, on a 3-node embedded cluster
 * (local fabric, 2 backups, 2 workers per node). Contents are {@link StampedContent}: a reader
 * can tell a torn copy, and which object and write a copy holds.
 *
 * <p>The machines can reorder a line copy against its version (docs/decisions.md, "The machines'
 * memory ordering"), which shows as a torn copy no code can prevent; a race that saw one is run
 * again, and the test fails only if the second, independent race sees one too.
 */
class LockFreeReadsRacingCommitsTest {
    private static final int NODES = 3;
    private static final int[] SIZES = {40, 500, 3000};
    private static final int ATTEMPTS = 1_000;
    /** Writers and freers: worker 0 of nodes 0 and 1. Readers: worker 1 of nodes 0 and 1, both workers of node 2. */
    private static final int[][] WRITERS = {{0, 0}, {1, 0}};
    private static final int[][] READERS = {{0, 1}, {1, 1}, {2, 0}, {2, 1}};
    /** Each reader accepts at least this many copies of each size, by lock-free reads and by transactions each. */
    private static final int MIN_READS_PER_SIZE = 150;
    /** Each reader sees at least this many new contents, so its reads really raced the commits. */
    private static final int MIN_CHANGES_SEEN = 100;
    /**
     * Each reader accepts at least this many copies only after a retry (a copy that was locked or
     * mixed line versions: a read that overlapped an install), unless a reader accepts a torn copy first.
     */
    private static final int MIN_RACED_READS = 50;
    /** Lock-free reads of a stale pointer after the race, while they time out. */
    private static final int STALE_READ_ATTEMPTS = 16;
    /** Replacements (free and allocate in one transaction) each freer commits. */
    private static final int REPLACEMENTS = 150;

    @TempDir(factory = ShmTempDirs.class)
    static Path dataDir;

    private static TxCluster cluster;

    @BeforeAll
    static void start() {
        cluster = new TxCluster("txreads", NODES, 2, 2, dataDir);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    // ---- torn copies ----

    @Test
    void noReaderAcceptsATornCopyWhileTransactionsCommitNewContents() throws Exception {
        ReadTally tally = raceReadersAgainstWriters();
        if (tally.anomalies() > 0) {
            System.out.println("a torn or older copy in a first race, racing again to confirm (docs/decisions.md, "
                + "\"The machines' memory ordering\"): " + tally);
            tally = raceReadersAgainstWriters();
        }
        assertEquals(0, tally.torn, tally::toString);
        assertEquals(0, tally.wentBack, tally::toString);
        for (int s = 0; s < SIZES.length; s++) {
            assertTrue(tally.lockFree[s] >= READERS.length * MIN_READS_PER_SIZE, tally::toString);
            assertTrue(tally.transactional[s] >= READERS.length * MIN_READS_PER_SIZE, tally::toString);
        }
        assertTrue(tally.changesSeen >= READERS.length * MIN_CHANGES_SEEN, tally::toString);
        assertTrue(tally.raced >= READERS.length * MIN_RACED_READS, tally::toString);
        System.out.println("reads racing commits: " + tally);
    }

    /** Objects of every size on every node; writers commit new contents until every reader has its share. */
    private ReadTally raceReadersAgainstWriters() throws Exception {
        List<long[]> objects = new ArrayList<>(); // {address, size index}
        int serial = 0;
        for (int s = 0; s < SIZES.length; s++) {
            for (int node = 0; node < NODES; node++) {
                objects.add(new long[] {cluster.create(node, StampedContent.of(StampedContent.stamp(serial++, 0), SIZES[s])), s});
            }
        }
        AtomicInteger readersDone = new AtomicInteger();
        AtomicBoolean anomalySeen = new AtomicBoolean();
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        List<ReadTally> tallies = new ArrayList<>();
        for (int w = 0; w < WRITERS.length; w++) {
            SplittableRandom random = new SplittableRandom(w);
            runs.add(on(WRITERS[w], worker -> repeat(worker, () -> readersDone.get() < READERS.length,
                () -> commitNewContents(worker, objects, random))));
        }
        for (int[] reader : READERS) {
            ReadTally tally = new ReadTally(objects.size(), anomalySeen);
            tallies.add(tally);
            SplittableRandom random = new SplittableRandom(reader[0] * 2 + reader[1]);
            runs.add(on(reader, worker -> repeat(worker, () -> {
                if (tally.hasItsShare()) {
                    readersDone.incrementAndGet();
                    return false;
                }
                return true;
            }, () -> tally.iterations++ % 2 == 0
                ? readLockFree(worker, objects, tally) : readInTransaction(worker, objects, random, tally))));
        }
        for (CompletableFuture<Void> run : runs) {
            Liveness.await(run);
        }
        ReadTally total = new ReadTally(0, anomalySeen);
        tallies.forEach(total::add);
        return total;
    }

    /** One transaction that reads one or two random objects and writes each its next content. */
    private static CompletionStage<Void> commitNewContents(NodeWorker worker, List<long[]> objects, SplittableRandom random) {
        int first = random.nextInt(objects.size());
        int second = random.nextInt(objects.size());
        return transactions(worker).execute(worker, ATTEMPTS, tx -> {
            List<CompletionStage<ObjectBuffer>> reads = new ArrayList<>();
            for (int i : first == second ? new int[] {first} : new int[] {first, second}) {
                reads.add(tx.txRead(objects.get(i)[0], SIZES[(int) objects.get(i)[1]]));
            }
            return ParallelReads.all(reads).thenApply(buffers -> {
                for (ObjectBuffer buffer : buffers) {
                    long stamp = StampedContent.stampOf(buffer.toByteArray());
                    tx.txWrite(buffer, StampedContent.of(StampedContent.stamp(StampedContent.serial(stamp),
                        StampedContent.sequence(stamp) + 1), buffer.size()));
                }
                return null;
            });
        });
    }

    /** Every object with lock-free reads in one operation. */
    private static CompletionStage<Void> readLockFree(NodeWorker worker, List<long[]> objects, ReadTally tally) {
        LockFreeReads reads = cluster.farm(worker.node().id()).reads();
        LockFreeOperation operation = reads.lockFreeStart(worker);
        List<CompletableFuture<Void>> checks = new ArrayList<>();
        for (int i = 0; i < objects.size(); i++) {
            int object = i;
            int size = (int) objects.get(i)[1];
            checks.add(reads.lockFreeRead(operation, objects.get(i)[0], SIZES[size]).<Void>handle((buffer, failure) -> {
                if (failure == null) {
                    tally.lockFree[size]++;
                    tally.check(object, buffer);
                } else if (unwrap(failure) instanceof LockFreeReadTimeoutException) {
                    tally.timeouts++;
                } else {
                    throw new CompletionException(failure);
                }
                return null;
            }).toCompletableFuture());
        }
        return CompletableFuture.allOf(checks.toArray(CompletableFuture[]::new))
            .whenComplete((ignored, failure) -> reads.lockFreeEnd(operation));
    }

    /** One object of each size, at random, in one read-only transaction, checked once it committed. */
    private static CompletionStage<Void> readInTransaction(NodeWorker worker, List<long[]> objects, SplittableRandom random,
                                                           ReadTally tally) {
        int[] chosen = new int[SIZES.length];
        for (int s = 0; s < SIZES.length; s++) {
            chosen[s] = s * NODES + random.nextInt(NODES);
        }
        return transactions(worker).execute(worker, 1, tx -> {
            List<CompletionStage<ObjectBuffer>> reads = new ArrayList<>();
            for (int s = 0; s < SIZES.length; s++) {
                reads.add(tx.txRead(objects.get(chosen[s])[0], SIZES[s]));
            }
            return ParallelReads.all(reads);
        }).handle((copies, failure) -> {
            if (failure == null) {
                for (int s = 0; s < SIZES.length; s++) {
                    tally.transactional[s]++;
                    tally.check(chosen[s], copies.get(s));
                }
            } else if (unwrap(failure) instanceof TransactionAbortedException abort && abort.reason().retryable()) {
                tally.aborted++;
            } else {
                throw new CompletionException(failure);
            }
            return null;
        });
    }

    /** What the readers saw; each reader has its own, used on its worker only. */
    private static final class ReadTally {
        final long[] lockFree = new long[SIZES.length];
        final long[] transactional = new long[SIZES.length];
        final long[] lastSequence;
        /** Shared by the readers of a race: once one accepted a torn or older copy, all stop. */
        final AtomicBoolean anomalySeen;
        long iterations;
        long raced;
        long torn;
        long wentBack;
        long changesSeen;
        long timeouts;
        long aborted;

        ReadTally(int objects, AtomicBoolean anomalySeen) {
            this.lastSequence = new long[objects];
            this.anomalySeen = anomalySeen;
        }

        /** Checks an accepted copy of {@code object}: intact, of that object, and no older than the last one seen. */
        void check(int object, ObjectBuffer buffer) {
            if (buffer.retries() > 0) {
                raced++;
            }
            byte[] copy = buffer.toByteArray();
            long stamp = StampedContent.stampOf(copy);
            if (!StampedContent.intact(copy) || StampedContent.serial(stamp) != object) {
                torn++;
                anomalySeen.set(true);
                return;
            }
            int sequence = StampedContent.sequence(stamp);
            if (sequence < lastSequence[object]) {
                wentBack++;
                anomalySeen.set(true);
            } else if (sequence > lastSequence[object]) {
                changesSeen++;
                lastSequence[object] = sequence;
            }
        }

        boolean hasItsShare() {
            if (anomalySeen.get()) {
                return true;
            }
            for (int s = 0; s < SIZES.length; s++) {
                if (lockFree[s] < MIN_READS_PER_SIZE || transactional[s] < MIN_READS_PER_SIZE) {
                    return false;
                }
            }
            return changesSeen >= MIN_CHANGES_SEEN && raced >= MIN_RACED_READS;
        }

        long anomalies() {
            return torn + wentBack;
        }

        void add(ReadTally other) {
            for (int s = 0; s < SIZES.length; s++) {
                lockFree[s] += other.lockFree[s];
                transactional[s] += other.transactional[s];
            }
            iterations += other.iterations;
            raced += other.raced;
            torn += other.torn;
            wentBack += other.wentBack;
            changesSeen += other.changesSeen;
            timeouts += other.timeouts;
            aborted += other.aborted;
        }

        @Override
        public String toString() {
            return "lock-free copies per size " + Arrays.toString(lockFree) + ", transactional copies per size "
                + Arrays.toString(transactional) + ", torn " + torn + ", went back " + wentBack
                + ", new contents seen " + changesSeen + ", read timeouts " + timeouts + ", aborted read-only transactions "
                + aborted + ", iterations " + iterations + ", copies accepted after a retry " + raced;
        }
    }

    // ---- freed objects ----

    @Test
    void aStaleFatPointerNeverReadsTheObjectAllocatedInItsPlace() throws Exception {
        Slots slots = new Slots();
        FreedTally tally = raceReadersAgainstReplacements(slots);
        if (tally.anomalies() > 0) {
            System.out.println("a torn copy or another object's bytes in a first race, racing again to confirm (docs/decisions.md, "
                + "\"The machines' memory ordering\"): " + tally);
            slots = new Slots();
            tally = raceReadersAgainstReplacements(slots);
        }
        assertEquals(0, tally.torn, tally::toString);
        assertEquals(0, tally.otherObject, tally::toString);
        assertEquals(0, tally.freedButNotFreed, tally::toString);
        assertEquals(0, tally.staleAccepted, tally::toString);
        assertTrue(tally.accepted >= (long) READERS.length * MIN_READS_PER_SIZE * SIZES.length, tally::toString);
        assertEquals(WRITERS.length * REPLACEMENTS, slots.retired.size());

        // Every retired fat pointer is refused, by a lock-free read and by a transaction, also where its slot holds a new object.
        int reused = 0;
        int refused = 0;
        for (Entry stale : slots.retired) {
            int node = refused % NODES;
            StaleRead read = cluster.on(node, 0, worker -> readStale(worker, stale));
            for (int attempt = 1; attempt < STALE_READ_ATTEMPTS && read.pointerFailure() instanceof LockFreeReadTimeoutException;
                 attempt++) {
                // A timed-out read says nothing about the object (a loaded machine descheduled the reader): read again.
                read = cluster.on(node, 0, worker -> readStale(worker, stale));
            }
            StaleRead last = read;
            assertInstanceOf(ObjectFreedException.class, last.pointerFailure(), () -> stale + ": " + last);
            ExecutionException aborted = assertThrows(ExecutionException.class,
                () -> cluster.execute(node, 1, tx -> tx.txRead(stale.pointer())));
            TransactionAbortedException abort = assertInstanceOf(TransactionAbortedException.class, aborted.getCause());
            assertEquals(AbortReason.OBJECT_FREED, abort.reason(), abort::toString);
            refused++;
            if (last.byAddress() != null && StampedContent.serial(StampedContent.stampOf(last.byAddress())) != stale.serial()) {
                reused++;
            }
        }
        assertEquals(slots.retired.size(), refused);
        // The case that matters happened: a freed slot reused by a new object, which its stale pointer did not read.
        assertTrue(reused > 0, "no retired slot was reused: " + tally);
        System.out.println("freed objects: " + tally + "; stale fat pointers refused afterwards " + refused
            + ", of which their slot held another object " + reused);
    }

    /** A published object: its fat pointer and its serial, which its contents carry. */
    record Entry(FatPointer pointer, int serial) {
    }

    /** What a lock-free read through a stale fat pointer and one by its address alone returned. */
    record StaleRead(Throwable pointerFailure, byte[] byAddress) {
    }

    /** The live objects readers pick from, and what was freed. */
    private static final class Slots {
        final AtomicReferenceArray<Entry> live = new AtomicReferenceArray<>(SIZES.length * NODES);
        final AtomicInteger serials = new AtomicInteger();
        /** Serials of objects a transaction set out to free: a read may find only these freed. */
        final Set<Integer> freeing = ConcurrentHashMap.newKeySet();
        final Queue<Entry> retired = new ConcurrentLinkedQueue<>();

        Slots() throws Exception {
            for (int slot = 0; slot < live.length(); slot++) {
                int serial = serials.getAndIncrement();
                int size = sizeOf(slot);
                long address = cluster.create(slot % NODES, StampedContent.of(StampedContent.stamp(serial, 0), size));
                FatPointer pointer = cluster.execute(0, 0, tx -> tx.txRead(address, size).thenApply(ObjectBuffer::fatPointer));
                live.set(slot, new Entry(pointer, serial));
            }
        }

        static int sizeOf(int slot) {
            return SIZES[slot / NODES];
        }

        Entry[] snapshot() {
            Entry[] entries = new Entry[live.length()];
            for (int i = 0; i < entries.length; i++) {
                entries[i] = live.get(i);
            }
            return entries;
        }
    }

    private FreedTally raceReadersAgainstReplacements(Slots slots) throws Exception {
        AtomicInteger freersDone = new AtomicInteger();
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (int w = 0; w < WRITERS.length; w++) {
            int freer = w;
            int[] round = new int[1];
            runs.add(on(WRITERS[w], worker -> repeat(worker, () -> {
                if (round[0] == REPLACEMENTS) {
                    freersDone.incrementAndGet();
                    return false;
                }
                return true;
            }, () -> {
                // Freer f owns the slots f, f + 2, ... in turn: no two freers replace one slot.
                int owned = (slots.live.length() - freer + WRITERS.length - 1) / WRITERS.length;
                return replace(worker, slots, freer + WRITERS.length * (round[0]++ % owned));
            })));
        }
        List<FreedTally> tallies = new ArrayList<>();
        for (int[] reader : READERS) {
            FreedTally tally = new FreedTally();
            tallies.add(tally);
            Entry[][] previous = {slots.snapshot()};
            runs.add(on(reader, worker -> repeat(worker,
                () -> freersDone.get() < WRITERS.length || tally.accepted < (long) MIN_READS_PER_SIZE * SIZES.length,
                () -> {
                    Entry[] now = slots.snapshot();
                    Entry[] before = previous[0];
                    previous[0] = now;
                    return tally.iterations++ % 2 == 0
                        ? readPointersLockFree(worker, slots, now, before, tally)
                        : readPointersInTransactions(worker, slots, now, before, tally);
                })));
        }
        for (CompletableFuture<Void> run : runs) {
            Liveness.await(run);
        }
        FreedTally total = new FreedTally();
        tallies.forEach(total::add);
        return total;
    }

    /** Frees the object of {@code slot} and allocates its successor near it, in one transaction; then publishes it. */
    private static CompletionStage<Void> replace(NodeWorker worker, Slots slots, int slot) {
        Entry old = slots.live.get(slot);
        int size = old.pointer().size();
        return transactions(worker).execute(worker, ATTEMPTS, tx -> tx.txRead(old.pointer()).thenCompose(buffer -> {
            byte[] copy = buffer.toByteArray();
            if (!StampedContent.intact(copy) || StampedContent.serial(StampedContent.stampOf(copy)) != old.serial()) {
                throw new IllegalStateException("the freer read a copy of serial " + old.serial() + " that is not its content: "
                    + Long.toHexString(StampedContent.stampOf(copy)));
            }
            slots.freeing.add(old.serial());
            tx.txFree(buffer);
            int serial = slots.serials.getAndIncrement();
            return tx.txAlloc(size, old.pointer().address()).thenApply(fresh -> {
                tx.txWrite(fresh, StampedContent.of(StampedContent.stamp(serial, 0), size));
                return new Entry(fresh.fatPointer(), serial);
            });
        })).thenAccept(successor -> {
            // Published after the commit: a reader that sees the successor knows the old object is freed.
            slots.live.set(slot, successor);
            slots.retired.add(old);
        });
    }

    /** Every live object through its fat pointer, and every pointer replaced since the last snapshot, in one operation. */
    private static CompletionStage<Void> readPointersLockFree(NodeWorker worker, Slots slots, Entry[] now, Entry[] before,
                                                              FreedTally tally) {
        LockFreeReads reads = cluster.farm(worker.node().id()).reads();
        LockFreeOperation operation = reads.lockFreeStart(worker);
        List<CompletableFuture<Void>> checks = new ArrayList<>();
        for (int slot = 0; slot < now.length; slot++) {
            Entry live = now[slot];
            checks.add(reads.lockFreeRead(operation, live.pointer()).<Void>handle((buffer, failure) -> {
                tally.checkLive(slots, live, buffer == null ? null : buffer.toByteArray(), unwrap(failure));
                return null;
            }).toCompletableFuture());
            Entry stale = before[slot];
            if (stale != live) {
                checks.add(reads.lockFreeRead(operation, stale.pointer()).<Void>handle((buffer, failure) -> {
                    Throwable cause = unwrap(failure);
                    tally.checkStale(cause instanceof ObjectFreedException, cause);
                    return null;
                }).toCompletableFuture());
            }
        }
        return CompletableFuture.allOf(checks.toArray(CompletableFuture[]::new))
            .whenComplete((ignored, failure) -> reads.lockFreeEnd(operation));
    }

    /** Every live object through its fat pointer in one read-only transaction, then each replaced pointer in one of its own. */
    private static CompletionStage<Void> readPointersInTransactions(NodeWorker worker, Slots slots, Entry[] now,
                                                                    Entry[] before, FreedTally tally) {
        CompletionStage<Void> live = transactions(worker).execute(worker, 1, tx -> {
            List<CompletionStage<ObjectBuffer>> reads = new ArrayList<>();
            for (Entry entry : now) {
                reads.add(tx.txRead(entry.pointer()));
            }
            return ParallelReads.all(reads).thenApply(buffers -> buffers.stream().map(ObjectBuffer::toByteArray).toList());
        }).handle((copies, failure) -> {
            Throwable cause = unwrap(failure);
            if (cause == null) {
                for (int slot = 0; slot < now.length; slot++) {
                    tally.checkLive(slots, now[slot], copies.get(slot), null);
                }
            } else if (cause instanceof TransactionAbortedException abort && abort.reason() == AbortReason.OBJECT_FREED) {
                for (Entry entry : now) {
                    if (entry.pointer().address() == abort.address()) {
                        tally.checkLive(slots, entry, null, new ObjectFreedException(abort.address(),
                            entry.pointer().incarnation(), 0));
                    }
                }
            } else if (cause instanceof TransactionAbortedException abort && abort.reason().retryable()) {
                tally.aborted++;
            } else {
                throw new CompletionException(cause);
            }
            return null;
        });
        for (int slot = 0; slot < now.length; slot++) {
            Entry stale = before[slot];
            if (stale != now[slot]) {
                live = live.thenCompose(ignored -> transactions(worker).execute(worker, 1,
                        tx -> tx.txRead(stale.pointer()).thenApply(ObjectBuffer::toByteArray))
                    .handle((copy, failure) -> {
                        Throwable cause = unwrap(failure);
                        tally.checkStale(cause instanceof TransactionAbortedException abort
                            && abort.reason() == AbortReason.OBJECT_FREED, cause);
                        return null;
                    }));
            }
        }
        return live;
    }

    /** A stale pointer read lock-free, and its address read without the pointer's incarnation. */
    private static CompletionStage<StaleRead> readStale(NodeWorker worker, Entry stale) {
        LockFreeReads reads = cluster.farm(worker.node().id()).reads();
        LockFreeOperation operation = reads.lockFreeStart(worker);
        CompletableFuture<Throwable> byPointer = reads.lockFreeRead(operation, stale.pointer())
            .handle((buffer, failure) -> failure == null ? null : unwrap(failure)).toCompletableFuture();
        CompletableFuture<byte[]> byAddress = reads.lockFreeRead(operation, stale.pointer().address(), stale.pointer().size())
            .handle((buffer, failure) -> buffer == null ? null : buffer.toByteArray()).toCompletableFuture();
        return byPointer.thenCombine(byAddress, StaleRead::new)
            .whenComplete((ignored, failure) -> reads.lockFreeEnd(operation));
    }

    /** What the readers of freed objects saw; each reader has its own, used on its worker only. */
    private static final class FreedTally {
        long iterations;
        long accepted;
        long freedSeen;
        long staleRefused;
        long staleAccepted;
        long torn;
        long otherObject;
        long freedButNotFreed;
        long timeouts;
        long aborted;

        /** A read of a live object: an intact copy of it, or refused as freed only if a transaction set out to free it. */
        void checkLive(Slots slots, Entry entry, byte[] copy, Throwable failure) {
            if (failure instanceof ObjectFreedException) {
                freedSeen++;
                if (!slots.freeing.contains(entry.serial())) {
                    freedButNotFreed++;
                }
            } else if (failure instanceof LockFreeReadTimeoutException
                || failure instanceof TransactionAbortedException abort && abort.reason() == AbortReason.TIMEOUT) {
                timeouts++;
            } else if (failure != null) {
                throw new CompletionException(failure);
            } else if (!StampedContent.intact(copy)) {
                torn++;
            } else if (StampedContent.serial(StampedContent.stampOf(copy)) != entry.serial()) {
                otherObject++;
            } else {
                accepted++;
            }
        }

        /** A read through a pointer replaced (so freed) before the read began: it must be refused as freed. */
        void checkStale(boolean refusedAsFreed, Throwable failure) {
            if (refusedAsFreed) {
                staleRefused++;
            } else if (failure instanceof LockFreeReadTimeoutException
                || failure instanceof TransactionAbortedException abort && abort.reason() == AbortReason.TIMEOUT) {
                timeouts++;
            } else if (failure != null) {
                throw new CompletionException(failure);
            } else {
                staleAccepted++;
            }
        }

        long anomalies() {
            return torn + otherObject;
        }

        void add(FreedTally other) {
            iterations += other.iterations;
            accepted += other.accepted;
            freedSeen += other.freedSeen;
            staleRefused += other.staleRefused;
            staleAccepted += other.staleAccepted;
            torn += other.torn;
            otherObject += other.otherObject;
            freedButNotFreed += other.freedButNotFreed;
            timeouts += other.timeouts;
            aborted += other.aborted;
        }

        @Override
        public String toString() {
            return "accepted " + accepted + ", found freed while racing " + freedSeen + ", stale pointers refused "
                + staleRefused + ", stale pointers accepted " + staleAccepted + ", torn " + torn + ", another object's bytes "
                + otherObject + ", freed though nobody freed it " + freedButNotFreed + ", read timeouts " + timeouts
                + ", aborted read-only transactions " + aborted + ", iterations " + iterations;
        }
    }

    // ---- running on workers ----

    private static Transactions transactions(NodeWorker worker) {
        return cluster.farm(worker.node().id()).transactions();
    }

    private static <T> CompletableFuture<T> on(int[] nodeWorker, Function<NodeWorker, CompletionStage<T>> operation) {
        return cluster.cluster().node(nodeWorker[0]).submit(nodeWorker[1], operation);
    }

    /**
     * Runs {@code step} on {@code worker} again and again while {@code more} holds, each step after
     * the last one completed; every step is a new task of the worker, so the stack does not grow.
     */
    private static CompletionStage<Void> repeat(NodeWorker worker, BooleanSupplier more, Supplier<CompletionStage<?>> step) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Runnable iteration = new Runnable() {
            @Override
            public void run() {
                try {
                    if (!more.getAsBoolean()) {
                        done.complete(null);
                        return;
                    }
                    step.get().whenComplete((ignored, failure) -> {
                        if (failure != null) {
                            done.completeExceptionally(failure);
                        } else {
                            worker.worker().execute(this);
                        }
                    });
                } catch (RuntimeException e) {
                    done.completeExceptionally(e);
                }
            }
        };
        worker.worker().execute(iteration);
        return done;
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
