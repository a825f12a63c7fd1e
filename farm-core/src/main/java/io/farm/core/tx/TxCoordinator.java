package io.farm.core.tx;

import io.farm.core.cluster.NodeWorker;
import io.farm.core.msg.RecordDescriptor;
import io.farm.core.msg.RingKind;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.LongArrayList;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * One worker's side of the commit protocol as a coordinator: transaction ids, the transactions
 * waiting for LOCK replies, log-ring reservations and lazy truncation. Confined to its worker;
 * {@link #poll()} runs once per event-loop step.
 *
 * <p><b>Reservations</b> (FaRM reserves log space before it commits). The records of a commit in
 * flight can only be truncated once it completes; if they filled a log ring, the records the
 * commit still has to send could never enter it. So a commit first reserves, per destination
 * node, the ring bytes of every record it may send there (LOCK, COMMIT-BACKUP, and a
 * COMMIT-PRIMARY or ABORT with the most truncations), and the reservations of a worker's commits
 * in flight stay within a quarter of the ring. The rest of the ring holds only records of
 * finished transactions, whose truncation never waits for anything (truncations also go as
 * messages, on the message rings). Commits that do not fit wait, in order, until earlier ones
 * finish; one whose records alone exceed the quarter aborts with a message naming the size and
 * {@code farm.log.ring.capacity}.
 *
 * <p><b>Truncation.</b> Once every record of a committed transaction was written (its
 * COMMIT-PRIMARY writes completed), each node that holds its records may truncate them. The
 * coordinator piggybacks up to {@value #MAX_PIGGYBACKED} truncations on each record it sends to
 * a node; truncations older than {@value #TRUNCATE_DELAY_NANOS} ns that found no record go in a
 * TRUNCATE message.
 */
final class TxCoordinator {
    /** Truncations carried by one record. */
    static final int MAX_PIGGYBACKED = 16;
    /** How long a truncation waits for a record to ride on before it goes in a message of its own. */
    static final long TRUNCATE_DELAY_NANOS = 200_000;
    /** How long a coordinator waits for the LOCK replies. */
    static final long REPLY_TIMEOUT_NANOS = 5_000_000_000L;
    private static final long EXPIRY_CHECK_NANOS = 1_000_000;

    private final Transactions transactions;
    private final NodeWorker worker;
    private final TxParticipant participant;
    private final long idPrefix;
    private long sequence;
    private final Long2ObjectHashMap<Transaction> awaitingReplies = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<Long> replyDeadlines = new Long2ObjectHashMap<>();
    private final LongArrayList[] truncations;
    private final long[] oldestTruncation;
    private final int[] reserved;
    private final int budget;
    private final ArrayDeque<Transaction> waiting = new ArrayDeque<>();
    private final ArrayDeque<Int2IntHashMap> waitingNeeds = new ArrayDeque<>();
    private final int maxLogPayload;
    // Native, like every segment of farm's production code (docs/decisions.md, Benchmarks).
    private final MemorySegment staging;
    private final MemorySegment truncateMessage;
    private final int maxTruncationsPerMessage;
    private MemorySegment scratch = Arena.ofAuto().allocate(4096, Long.BYTES);
    private long nextExpiryCheck;

    TxCoordinator(Transactions transactions, NodeWorker worker, TxParticipant participant) {
        this.transactions = transactions;
        this.worker = worker;
        this.participant = participant;
        int nodes = worker.node().config().size();
        this.idPrefix = (long) worker.node().id() << 48 | (long) worker.index() << 40;
        this.truncations = new LongArrayList[nodes];
        this.oldestTruncation = new long[nodes];
        for (int n = 0; n < nodes; n++) {
            truncations[n] = new LongArrayList();
        }
        this.reserved = new int[nodes];
        int logCapacity = worker.node().messagingLayout().capacity(RingKind.LOG);
        this.budget = logCapacity / 4;
        this.maxLogPayload = worker.messenger().maxPayloadLength(RingKind.LOG);
        this.staging = Arena.ofAuto().allocate(maxLogPayload, Long.BYTES);
        int maxMessage = worker.messenger().maxPayloadLength(RingKind.MESSAGE);
        this.maxTruncationsPerMessage = (maxMessage - TxRecordDescriptor.HEADER_LENGTH) / Long.BYTES;
        this.truncateMessage = Arena.ofAuto().allocate(maxMessage, Long.BYTES);
    }

    /** A new transaction id: node (16 bits), worker (8 bits), sequence (40 bits); never 0. */
    long nextId() {
        return idPrefix | ++sequence & (1L << 40) - 1;
    }

    /** The participant of this worker (a single-machine commit frees through it). */
    TxParticipant participant() {
        return participant;
    }

    /** The staging buffer for one record; its contents are copied by the send. */
    MemorySegment staging() {
        return staging;
    }

    /** A scratch buffer of at least {@code size} bytes, reused. */
    MemorySegment scratch(int size) {
        if (scratch.byteSize() < size) {
            scratch = Arena.ofAuto().allocate(Math.max(size, 2 * scratch.byteSize()), Long.BYTES);
        }
        return scratch;
    }

    /** Ring bytes taken by a record of {@code payloadLength} bytes. */
    int span(int payloadLength) {
        return RecordDescriptor.span(RecordDescriptor.recordLength(payloadLength));
    }

    /**
     * Reserves {@code need} (ring bytes by node) for {@code transaction} and starts it
     * ({@link Transaction#reserved()}) now, or when earlier commits finished; refuses one that can
     * never fit ({@link Transaction#tooLarge}).
     */
    void reserve(Transaction transaction, Int2IntHashMap need) {
        Int2IntHashMap.EntryIterator entries = need.entrySet().iterator();
        while (entries.hasNext()) {
            entries.next();
            int bytes = entries.getIntValue();
            if (bytes > budget) {
                transaction.tooLarge("its log records for node " + entries.getIntKey() + " take " + bytes
                    + " bytes of a log ring; a transaction may take up to " + budget + " (a quarter of "
                    + "farm.log.ring.capacity, " + 4 * budget + " bytes): write less in one transaction or raise it");
                return;
            }
        }
        if (waiting.isEmpty() && fits(need)) {
            take(need);
            transaction.reserved();
        } else {
            waiting.add(transaction);
            waitingNeeds.add(need);
        }
    }

    /** Returns a finished commit's reservation; waiting commits that fit start in the next {@link #poll()}. */
    void release(Int2IntHashMap need) {
        Int2IntHashMap.EntryIterator entries = need.entrySet().iterator();
        while (entries.hasNext()) {
            entries.next();
            reserved[entries.getIntKey()] -= entries.getIntValue();
        }
        need.clear();
    }

    private boolean fits(Int2IntHashMap need) {
        Int2IntHashMap.EntryIterator entries = need.entrySet().iterator();
        while (entries.hasNext()) {
            entries.next();
            if (reserved[entries.getIntKey()] + entries.getIntValue() > budget) {
                return false;
            }
        }
        return true;
    }

    private void take(Int2IntHashMap need) {
        Int2IntHashMap.EntryIterator entries = need.entrySet().iterator();
        while (entries.hasNext()) {
            entries.next();
            reserved[entries.getIntKey()] += entries.getIntValue();
        }
    }

    /** Registers {@code transaction} as waiting for LOCK replies. */
    void awaitReplies(Transaction transaction) {
        awaitingReplies.put(transaction.id(), transaction);
        replyDeadlines.put(transaction.id(), Long.valueOf(System.nanoTime() + REPLY_TIMEOUT_NANOS));
    }

    /** Every LOCK reply of {@code transaction} arrived. */
    void repliesDone(Transaction transaction) {
        awaitingReplies.remove(transaction.id());
        replyDeadlines.remove(transaction.id());
    }

    /** A LOCK reply message. */
    void onLockReply(int senderNode, MemorySegment payload, long offset, int length) {
        if (length != TxRecordDescriptor.REPLY_LENGTH) {
            throw new IllegalStateException("malformed LOCK reply from node " + senderNode + ": " + length
                + " bytes, expected " + TxRecordDescriptor.REPLY_LENGTH + "; dropped");
        }
        long id = TxRecordDescriptor.transaction(payload, offset);
        Transaction transaction = awaitingReplies.get(id);
        if (transaction == null) {
            // The transaction timed out and aborted; its ABORT record releases the locks.
            transactions.stats().countLateReply();
            return;
        }
        int status = TxRecordDescriptor.configuration(payload, offset) == TxRecordDescriptor.CONFIGURATION
            ? TxRecordDescriptor.replyStatus(payload, offset) : TxRecordDescriptor.WRONG_PRIMARY;
        transaction.onLockReply(senderNode, status, TxRecordDescriptor.replyAddress(payload, offset));
    }

    /** Truncates {@code transaction}'s records at {@code nodes} lazily. */
    void truncateLater(long transaction, int[] nodes) {
        long now = System.nanoTime();
        for (int node : nodes) {
            if (truncations[node].isEmpty()) {
                oldestTruncation[node] = now;
            }
            truncations[node].addLong(transaction);
        }
    }

    /**
     * Writes up to {@value #MAX_PIGGYBACKED} pending truncations for {@code node} into the header
     * at {@code offset} of {@code record} and returns how many.
     */
    int putTruncations(int node, MemorySegment record, long offset) {
        LongArrayList pending = truncations[node];
        int count = Math.min(MAX_PIGGYBACKED, pending.size());
        int last = pending.size() - 1;
        for (int i = 0; i < count; i++) {
            TxRecordDescriptor.putTruncation(record, offset, i, pending.removeAt(last - i));
        }
        if (!pending.isEmpty() && count > 0) {
            oldestTruncation[node] = System.nanoTime();
        }
        return count;
    }

    /** Work due on this worker: waiting commits that fit, overdue truncations, LOCK reply timeouts. */
    int poll() {
        int work = 0;
        while (!waiting.isEmpty() && fits(waitingNeeds.peek())) {
            Int2IntHashMap need = waitingNeeds.poll();
            take(need);
            waiting.poll().reserved();
            work++;
        }
        long now = 0;
        for (int node = 0; node < truncations.length; node++) {
            if (truncations[node].isEmpty()) {
                continue;
            }
            if (now == 0) {
                now = System.nanoTime();
            }
            if (now - oldestTruncation[node] >= TRUNCATE_DELAY_NANOS) {
                sendTruncations(node);
                work++;
            }
        }
        if (!awaitingReplies.isEmpty()) {
            now = now == 0 ? System.nanoTime() : now;
            if (now - nextExpiryCheck >= 0) {
                nextExpiryCheck = now + EXPIRY_CHECK_NANOS;
                work += expire(now);
            }
        }
        return work;
    }

    private void sendTruncations(int node) {
        LongArrayList pending = truncations[node];
        while (!pending.isEmpty()) {
            int count = Math.min(maxTruncationsPerMessage, pending.size());
            int last = pending.size() - 1;
            for (int i = 0; i < count; i++) {
                TxRecordDescriptor.putTruncation(truncateMessage, 0, i, pending.removeAt(last - i));
            }
            TxRecordDescriptor.putHeader(truncateMessage, 0, 0, count, 0);
            transactions.stats().countSent(TxRecordDescriptor.TRUNCATE);
            worker.messenger().send(node, TxRecordDescriptor.TRUNCATE, truncateMessage, 0,
                TxRecordDescriptor.headerLength(count));
        }
    }

    private int expire(long now) {
        int expired = 0;
        Long2ObjectHashMap<Long>.KeyIterator ids = replyDeadlines.keySet().iterator();
        LongArrayList due = new LongArrayList();
        while (ids.hasNext()) {
            long id = ids.nextLong();
            if (now - replyDeadlines.get(id) >= 0) {
                due.addLong(id);
            }
        }
        for (int i = 0; i < due.size(); i++) {
            Transaction transaction = awaitingReplies.remove(due.getLong(i));
            replyDeadlines.remove(due.getLong(i));
            transaction.lockTimedOut();
            expired++;
        }
        return expired;
    }
}
