package io.farm.core.tx;

import io.farm.core.addr.GlobalAddress;
import io.farm.core.alloc.NodeAllocator;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.msg.LogHandler;
import io.farm.core.object.ObjectLayout;
import io.farm.core.placement.PlacementRing;
import io.farm.core.region.Region;
import org.agrona.collections.Long2ObjectHashMap;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static io.farm.core.tx.TxRecordDescriptor.ABORT;
import static io.farm.core.tx.TxRecordDescriptor.COMMIT_BACKUP;
import static io.farm.core.tx.TxRecordDescriptor.COMMIT_PRIMARY;
import static io.farm.core.tx.TxRecordDescriptor.FREED;
import static io.farm.core.tx.TxRecordDescriptor.LOCK;
import static io.farm.core.tx.TxRecordDescriptor.LOCKED;
import static io.farm.core.tx.TxRecordDescriptor.WRITE;
import static io.farm.core.tx.TxRecordDescriptor.WRONG_PRIMARY;

/**
 * One worker's side of the commit protocol as a primary or backup (SOSP'15, DESIGN §7): it
 * handles the log records that worker {@code w} of every node writes to this node's worker
 * {@code w} (thread pairing), keeps them until the coordinator truncates them, and answers
 * LOCK records. Confined to its worker.
 * <ul>
 *   <li><b>LOCK</b>: checks that this node is the primary of every entry, locks each object
 *       {@link io.farm.core.object.ObjectLayout#EXCLUSIVE exclusively} at its read version; on
 *       the first failure unlocks what it locked; answers with a LOCK reply either way.</li>
 *   <li><b>COMMIT-PRIMARY</b>: installs the LOCK record's entries (new bytes and incarnation
 *       word, next version, unlocked; a freed object is freed in the allocator while still
 *       locked, then unlocked at the next version).</li>
 *   <li><b>ABORT</b>: releases the LOCK record's locks and drops the transaction's records.</li>
 *   <li><b>COMMIT-BACKUP</b>: kept; applied to this node's copy of the regions at truncation.</li>
 *   <li><b>Truncation</b> of a transaction (piggybacked on any record or message from its
 *       coordinator's worker): applies its COMMIT-BACKUP records and truncates all its records.</li>
 * </ul>
 * A record that is malformed, from another configuration, or names an object this node is not
 * the primary (LOCK) or a backup (COMMIT-BACKUP) of changes nothing; a LOCK is refused with its
 * reply, anything else is reported on the worker (its error handler) and dropped.
 */
final class TxParticipant implements LogHandler {
    private final Transactions transactions;
    private final NodeWorker worker;
    private final PlacementRing placement;
    private final int nodeId;
    /** Records held until truncation, by transaction id. */
    private final Long2ObjectHashMap<List<HeldRecord>> held = new Long2ObjectHashMap<>();
    // Native, like every segment of farm's production code (docs/decisions.md, Benchmarks).
    private final MemorySegment reply = Arena.ofAuto().allocate(TxRecordDescriptor.REPLY_LENGTH, Long.BYTES);

    /** A record kept in its log ring until its transaction is truncated. */
    private record HeldRecord(int type, int senderNode, long position, MemorySegment payload, long offset, int length,
                              boolean locked) {
    }

    TxParticipant(Transactions transactions, NodeWorker worker) {
        this.transactions = transactions;
        this.worker = worker;
        this.placement = worker.node().config().placement();
        this.nodeId = worker.node().id();
    }

    @Override
    public void onLogRecord(int senderNode, int senderThread, int type, long position, MemorySegment payload,
                            long offset, int length) {
        String what = recordName(type) + " from node " + senderNode + " worker " + senderThread;
        try {
            TxRecordDescriptor.validate(payload, offset, length, what);
        } catch (IllegalArgumentException malformed) {
            worker.messenger().truncateLog(senderNode, position);
            if (type == LOCK && length >= TxRecordDescriptor.HEADER_LENGTH) {
                answer(senderNode, TxRecordDescriptor.transaction(payload, offset), TxRecordDescriptor.MALFORMED, 0);
            }
            throw malformed;
        }
        long transaction = TxRecordDescriptor.transaction(payload, offset);
        truncateAll(senderNode, payload, offset);
        if (TxRecordDescriptor.configuration(payload, offset) != TxRecordDescriptor.CONFIGURATION) {
            worker.messenger().truncateLog(senderNode, position);
            if (type == LOCK) {
                answer(senderNode, transaction, WRONG_PRIMARY, 0);
            }
            throw new IllegalStateException(what + " is from configuration "
                + TxRecordDescriptor.configuration(payload, offset) + ", this node is in configuration "
                + TxRecordDescriptor.CONFIGURATION + "; dropped");
        }
        switch (type) {
            case LOCK -> onLock(senderNode, transaction, position, payload, offset, length);
            case COMMIT_BACKUP -> onCommitBackup(senderNode, transaction, position, payload, offset, length, what);
            case COMMIT_PRIMARY -> onCommitPrimary(senderNode, transaction, position, payload, offset, length, what);
            case ABORT -> onAbort(senderNode, transaction, position);
            default -> {
                worker.messenger().truncateLog(senderNode, position);
                throw new IllegalStateException("log record of unknown type " + type + " from node " + senderNode
                    + "; accepted: LOCK, COMMIT-BACKUP, COMMIT-PRIMARY, ABORT; dropped");
            }
        }
    }

    /** A TRUNCATE message: the truncations it carries, once every record already in the log rings is handled. */
    void onTruncateMessage(int senderNode, MemorySegment payload, long offset, int length) {
        TxRecordDescriptor.validate(payload, offset, length, "TRUNCATE message from node " + senderNode);
        // The coordinator truncates only records whose writes completed, so they are in this
        // worker's log rings; deliver them first, in order.
        worker.messenger().pollLog(this, Integer.MAX_VALUE);
        truncateAll(senderNode, payload, offset);
    }

    private void truncateAll(int senderNode, MemorySegment payload, long offset) {
        int count = TxRecordDescriptor.truncations(payload, offset);
        for (int i = 0; i < count; i++) {
            truncate(senderNode, TxRecordDescriptor.truncation(payload, offset, i));
        }
    }

    private void onLock(int senderNode, long transaction, long position, MemorySegment payload, long offset, int length) {
        int entries = TxRecordDescriptor.entries(payload, offset);
        long entry = TxRecordDescriptor.firstEntry(payload, offset);
        int status = LOCKED;
        long cause = 0;
        int locked = 0;
        for (; locked < entries; locked++) {
            long address = TxRecordDescriptor.entryAddress(payload, entry);
            MemorySegment region = primaryRegion(address, TxRecordDescriptor.entrySize(payload, entry));
            if (region == null) {
                status = WRONG_PRIMARY;
            } else {
                status = ObjectLocks.lock(region, objectOffset(address), TxRecordDescriptor.entryVersion(payload, entry),
                    TxRecordDescriptor.entryReadIncarnation(payload, entry), ObjectLayout.EXCLUSIVE);
            }
            if (status != LOCKED) {
                cause = address;
                break;
            }
            entry = TxRecordDescriptor.nextEntry(payload, entry);
        }
        if (status != LOCKED) {
            unlock(payload, offset, locked);
        }
        hold(transaction, new HeldRecord(LOCK, senderNode, position, payload, offset, length, status == LOCKED));
        answer(senderNode, transaction, status, cause);
    }

    private void onCommitPrimary(int senderNode, long transaction, long position, MemorySegment payload, long offset,
                                 int length, String what) {
        HeldRecord lock = find(transaction, LOCK);
        if (lock == null || !lock.locked()) {
            worker.messenger().truncateLog(senderNode, position);
            throw new IllegalStateException(what + " for transaction " + Long.toHexString(transaction)
                + (lock == null ? " whose LOCK record this worker does not hold" : " whose LOCK failed") + "; dropped");
        }
        int entries = TxRecordDescriptor.entries(lock.payload(), lock.offset());
        long entry = TxRecordDescriptor.firstEntry(lock.payload(), lock.offset());
        for (int i = 0; i < entries; i++) {
            installPrimary(lock.payload(), entry);
            entry = TxRecordDescriptor.nextEntry(lock.payload(), entry);
        }
        hold(transaction, new HeldRecord(COMMIT_PRIMARY, senderNode, position, payload, offset, length, false));
    }

    private void installPrimary(MemorySegment record, long entry) {
        long address = TxRecordDescriptor.entryAddress(record, entry);
        int size = TxRecordDescriptor.entrySize(record, entry);
        int flags = TxRecordDescriptor.entryFlags(record, entry);
        long readVersion = TxRecordDescriptor.entryVersion(record, entry);
        MemorySegment region = worker.node().region(GlobalAddress.regionId(address)).memory();
        long offset = objectOffset(address);
        transactions.pacing().awaitTurn(address);
        if ((flags & FREED) != 0) {
            installFree(region, address, readVersion, TxRecordDescriptor.entryIncarnation(record, entry), flags);
        } else {
            ObjectLocks.install(region, offset, ObjectLayout.storedSize(size), readVersion,
                TxRecordDescriptor.entryIncarnation(record, entry), record, entry + TxRecordDescriptor.ENTRY_DATA_OFFSET,
                size);
        }
    }

    /**
     * Frees an object this worker holds exclusively locked (its region's primary is this node),
     * then unlocks it at the next version: an object or an array's element 0 in the allocator
     * while still locked, so that nobody locks and writes a free slot; an array's later element
     * by its incarnation word ({@code incarnationWord}, the next free word).
     */
    void installFree(MemorySegment region, long address, long readVersion, long incarnationWord, int flags) {
        long offset = objectOffset(address);
        if ((flags & TxRecordDescriptor.ARRAY_ELEMENT) != 0) {
            region.set(ValueLayout.JAVA_LONG, offset + ObjectLayout.INCARNATION_OFFSET, incarnationWord);
        } else {
            freeLocked(address);
        }
        ObjectLocks.bumpAndUnlock(region, offset, readVersion);
    }

    private void freeLocked(long address) {
        NodeAllocator allocator = transactions.allocator();
        allocator.free(worker, address).whenComplete((ignored, failure) -> {
            if (failure != null) {
                report(new IllegalStateException("free of " + GlobalAddress.toString(address)
                    + " committed, but its block table did not reach every backup", failure));
            }
        });
    }

    private void onAbort(int senderNode, long transaction, long position) {
        worker.messenger().truncateLog(senderNode, position);
        List<HeldRecord> records = held.remove(transaction);
        if (records == null) {
            return;
        }
        for (HeldRecord record : records) {
            if (record.type() == LOCK && record.locked()) {
                unlock(record.payload(), record.offset(), TxRecordDescriptor.entries(record.payload(), record.offset()));
            }
            worker.messenger().truncateLog(record.senderNode(), record.position());
        }
    }

    private void onCommitBackup(int senderNode, long transaction, long position, MemorySegment payload, long offset,
                                int length, String what) {
        int entries = TxRecordDescriptor.entries(payload, offset);
        long entry = TxRecordDescriptor.firstEntry(payload, offset);
        for (int i = 0; i < entries; i++) {
            long address = TxRecordDescriptor.entryAddress(payload, entry);
            if (backupRegion(address, TxRecordDescriptor.entrySize(payload, entry)) == null) {
                worker.messenger().truncateLog(senderNode, position);
                throw new IllegalStateException(what + ": node " + nodeId + " is no backup of "
                    + GlobalAddress.toString(address) + " (its region's replicas: "
                    + placement.replicas(GlobalAddress.regionId(address)) + "); dropped");
            }
            entry = TxRecordDescriptor.nextEntry(payload, entry);
        }
        hold(transaction, new HeldRecord(COMMIT_BACKUP, senderNode, position, payload, offset, length, false));
    }

    private void truncate(int senderNode, long transaction) {
        List<HeldRecord> records = held.remove(transaction);
        if (records == null) {
            report(new IllegalStateException("truncation from node " + senderNode + " of transaction "
                + Long.toHexString(transaction) + ", of which worker " + worker.index() + " holds no record; ignored"));
            return;
        }
        for (HeldRecord record : records) {
            if (record.type() == COMMIT_BACKUP) {
                applyBackup(record.payload(), record.offset());
            }
            worker.messenger().truncateLog(record.senderNode(), record.position());
        }
    }

    /**
     * Applies a COMMIT-BACKUP record to this node's copies: each entry under its stripe's monitor
     * (other workers apply other coordinators' records), only if its version is newer than the
     * copy's, so that records truncated out of commit order leave the latest version. Versions of
     * a slot only grow while its block keeps its size class; a block given another class starts
     * its slots at version 0, on the primary and, through the block-table replication, on every
     * backup, before any object of the new class is written.
     */
    private void applyBackup(MemorySegment record, long offset) {
        int entries = TxRecordDescriptor.entries(record, offset);
        long entry = TxRecordDescriptor.firstEntry(record, offset);
        for (int i = 0; i < entries; i++) {
            long address = TxRecordDescriptor.entryAddress(record, entry);
            int size = TxRecordDescriptor.entrySize(record, entry);
            int flags = TxRecordDescriptor.entryFlags(record, entry);
            long readVersion = TxRecordDescriptor.entryVersion(record, entry);
            long newVersion = ObjectLayout.nextVersion(readVersion);
            MemorySegment region = worker.node().region(GlobalAddress.regionId(address)).memory();
            long objectOffset = objectOffset(address);
            synchronized (transactions.backupStripe(address)) {
                long current = ObjectLayout.version(ObjectLocks.versionWord(region, objectOffset));
                if (current < newVersion) {
                    if ((flags & FREED) != 0) {
                        region.set(ValueLayout.JAVA_LONG,
                            objectOffset + ObjectLayout.INCARNATION_OFFSET, TxRecordDescriptor.entryIncarnation(record, entry));
                        ObjectLocks.bumpAndUnlock(region, objectOffset, readVersion);
                    } else if ((flags & WRITE) != 0) {
                        ObjectLocks.install(region, objectOffset, ObjectLayout.storedSize(size), readVersion,
                            TxRecordDescriptor.entryIncarnation(record, entry), record,
                            entry + TxRecordDescriptor.ENTRY_DATA_OFFSET, size);
                    }
                }
            }
            entry = TxRecordDescriptor.nextEntry(record, entry);
        }
    }

    private void unlock(MemorySegment payload, long offset, int count) {
        long entry = TxRecordDescriptor.firstEntry(payload, offset);
        for (int i = 0; i < count; i++) {
            long address = TxRecordDescriptor.entryAddress(payload, entry);
            ObjectLocks.unlock(worker.node().region(GlobalAddress.regionId(address)).memory(), objectOffset(address),
                TxRecordDescriptor.entryVersion(payload, entry));
            entry = TxRecordDescriptor.nextEntry(payload, entry);
        }
    }

    private void hold(long transaction, HeldRecord record) {
        List<HeldRecord> records = held.get(transaction);
        if (records == null) {
            records = new ArrayList<>(2);
            held.put(transaction, records);
        }
        records.add(record);
    }

    private HeldRecord find(long transaction, int type) {
        List<HeldRecord> records = held.get(transaction);
        if (records != null) {
            for (HeldRecord record : records) {
                if (record.type() == type) {
                    return record;
                }
            }
        }
        return null;
    }

    private void answer(int coordinator, long transaction, int status, long cause) {
        TxRecordDescriptor.putReply(reply, 0, transaction, status, cause);
        transactions.stats().countSent(TxRecordDescriptor.LOCK_REPLY);
        worker.messenger().send(coordinator, TxRecordDescriptor.LOCK_REPLY, reply, 0, TxRecordDescriptor.REPLY_LENGTH);
    }

    /** This node's primary copy of {@code address}'s region when this node is its primary and the object fits it, else null. */
    private MemorySegment primaryRegion(long address, int size) {
        int regionId = GlobalAddress.regionId(address);
        if (!placement.isDataRegion(regionId) || placement.primary(regionId) != nodeId) {
            return null;
        }
        return objectRegion(regionId, address, size);
    }

    private MemorySegment backupRegion(long address, int size) {
        int regionId = GlobalAddress.regionId(address);
        if (!placement.isDataRegion(regionId) || placement.replicas(regionId).indexOf(nodeId) < 1) {
            return null;
        }
        return objectRegion(regionId, address, size);
    }

    private MemorySegment objectRegion(int regionId, long address, int size) {
        Region region = worker.node().region(regionId);
        long offset = objectOffset(address);
        if (region == null || offset % ObjectLayout.LINE != 0 || offset + ObjectLayout.storedSize(size) > region.size()) {
            return null;
        }
        return region.memory();
    }

    private static long objectOffset(long address) {
        return GlobalAddress.offset(address) & 0xFFFF_FFFFL;
    }

    /** Reports a failure on the worker (its error handler) without stopping the record being handled. */
    private void report(RuntimeException failure) {
        worker.worker().execute(() -> {
            throw failure;
        });
    }

    /** A record type's name, for messages. */
    static String recordName(int type) {
        return switch (type) {
            case LOCK -> "LOCK record";
            case COMMIT_BACKUP -> "COMMIT-BACKUP record";
            case COMMIT_PRIMARY -> "COMMIT-PRIMARY record";
            case ABORT -> "ABORT record";
            default -> "log record of type " + type;
        };
    }
}
