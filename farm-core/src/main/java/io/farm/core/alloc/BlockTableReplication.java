package io.farm.core.alloc;

import io.farm.alloc.BlockTableListener;
import io.farm.core.addr.RegionId;
import io.farm.core.cluster.Node;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.node.Worker;
import io.farm.core.placement.PlacementRing;
import io.farm.core.placement.ReplicaSet;
import org.agrona.collections.Int2ObjectHashMap;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Copies a node's block-table writes to the backups at allocation time (FaRM NSDI'14 §3.3):
 * the {@link BlockTableListener} of the node's block allocator. Every write to a region's block 0
 * (its header when formatted, a block's state word when it changes) becomes a one-sided write of
 * the same bytes to the same offset of every backup's copy of the region, posted on the port of
 * the worker that made the change ({@link NodeWorker#port()}).
 *
 * <p><b>Order.</b> Two workers may change the same state word one after the other (one releases a
 * block, another takes it at once); their writes leave from different ports, which the fabric
 * does not order. So the writes of one region form a chain: a write is posted only once the one
 * before it (in the block allocator's lock order, which is the order of the listener's calls)
 * has completed at every backup, by whichever worker completed that one. A backup's block 0 thus
 * goes through the primary's states in the primary's order.
 *
 * <p><b>Waiting.</b> {@link #replicated} makes an operation complete only when the table writes it
 * caused, and every write of its region posted so far, have completed: a block is never used
 * before its backups know its state, even by a later allocation from a block an earlier one took.
 * It completes on the operation's worker.
 */
final class BlockTableReplication implements BlockTableListener {
    private final Node node;
    private final PlacementRing placement;
    /** Per worker, the writes its operations caused that no operation has waited for yet; that worker's thread only. */
    private final List<List<TableWrite>> caused;
    /** Per region, the last write of its chain while it is not complete. */
    private final Int2ObjectHashMap<TableWrite> lastWrites = new Int2ObjectHashMap<>();
    /** Writes not complete yet, so that operations skip the lookup of their region's chain when there are none. */
    private final AtomicInteger incomplete = new AtomicInteger();

    BlockTableReplication(Node node) {
        this.node = node;
        this.placement = node.config().placement();
        int threads = node.config().threads();
        this.caused = new ArrayList<>(threads);
        for (int w = 0; w < threads; w++) {
            caused.add(new ArrayList<>());
        }
    }

    /**
     * Queues the write for the region's backups. Called by the block allocator on the worker that
     * made the change, under the block allocator's lock: the order of these calls is the order of
     * the changes.
     *
     * @throws IllegalStateException if called off this node's workers (the allocators run only on them)
     */
    @Override
    public void written(int regionId, int offset, MemorySegment bytes) {
        ReplicaSet replicas = placement.replicas(regionId);
        if (replicas.size() == 1) {
            return;
        }
        NodeWorker worker = callingWorker();
        TableWrite write = new TableWrite(regionId, offset, bytes, replicas);
        TableWrite previous;
        synchronized (lastWrites) {
            previous = lastWrites.put(regionId, write);
        }
        incomplete.incrementAndGet();
        caused.get(worker.index()).add(write);
        if (previous == null) {
            write.post(worker);
        } else {
            // Runs on the worker that completes the previous write (or here, if it completed meanwhile).
            previous.done.whenComplete((ignored, failure) -> write.post(callingWorker()));
        }
    }

    /**
     * {@code value}, once the table writes caused on {@code worker} so far, and every write of
     * region {@code regionId} (0: none) posted so far, have completed at every backup; completes on
     * {@code worker}. Fails with the first {@link BlockTableReplicationException} of those writes.
     * Call it on {@code worker}, when the operation that caused the writes has finished.
     */
    <T> CompletionStage<T> replicated(NodeWorker worker, int regionId, T value) {
        List<TableWrite> mine = caused.get(worker.index());
        TableWrite last = null;
        if (regionId != 0 && incomplete.get() > 0) {
            synchronized (lastWrites) {
                last = lastWrites.get(regionId);
            }
        }
        if (mine.isEmpty() && last == null) {
            return CompletableFuture.completedFuture(value);
        }
        List<CompletableFuture<Void>> awaited = new ArrayList<>(mine.size() + 1);
        for (TableWrite write : mine) {
            awaited.add(write.done);
        }
        mine.clear();
        if (last != null) {
            awaited.add(last.done);
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        CompletableFuture.allOf(awaited.toArray(CompletableFuture[]::new)).whenComplete((ignored, failure) -> {
            Runnable complete = () -> {
                if (failure == null) {
                    result.complete(value);
                } else {
                    result.completeExceptionally(failure instanceof CompletionException wrapped && wrapped.getCause() != null
                        ? wrapped.getCause() : failure);
                }
            };
            if (worker.worker().inWorkerThread()) {
                complete.run();
            } else {
                worker.worker().execute(complete);
            }
        });
        return result;
    }

    private NodeWorker callingWorker() {
        Worker current = Worker.current();
        if (current == null || current.index() >= node.config().threads() || node.workers().worker(current.index()) != current) {
            throw new IllegalStateException("block table of node " + node.id() + " changed on " + Thread.currentThread().getName()
                + ", which is none of its workers: its allocators run on its workers only");
        }
        return node.worker(current.index());
    }

    /** One write of block 0 bytes to every backup of a region; posted once, by one worker. */
    private final class TableWrite {
        private final int regionId;
        private final int offset;
        /** The bytes as the primary wrote them (native; stable until every backup's write completed). */
        private final MemorySegment bytes;
        private final ReplicaSet replicas;
        private final Throwable[] failures;
        final CompletableFuture<Void> done = new CompletableFuture<>();
        private int waiting;

        TableWrite(int regionId, int offset, MemorySegment bytes, ReplicaSet replicas) {
            this.regionId = regionId;
            this.offset = offset;
            this.bytes = Arena.ofAuto().allocate(bytes.byteSize(), Long.BYTES).copyFrom(bytes);
            this.replicas = replicas;
            this.failures = new Throwable[replicas.size()];
        }

        /** Posts the write to every backup on {@code poster}'s port; runs on that worker. */
        void post(NodeWorker poster) {
            waiting = replicas.size() - 1;
            for (int i = 1; i < replicas.size(); i++) {
                int index = i;
                try {
                    poster.port().write(node.capability(replicas.node(i), regionId), offset, bytes, 0, (int) bytes.byteSize(),
                        failure -> answered(index, failure));
                } catch (RuntimeException e) {
                    answered(index, e);
                }
            }
        }

        /** Runs on the posting worker. */
        private void answered(int index, Throwable failure) {
            failures[index] = failure;
            if (--waiting > 0) {
                return;
            }
            synchronized (lastWrites) {
                if (lastWrites.get(regionId) == this) {
                    lastWrites.remove(regionId);
                }
            }
            incomplete.decrementAndGet();
            BlockTableReplicationException failed = null;
            for (int i = 1; i < replicas.size(); i++) {
                if (failures[i] != null) {
                    if (failed == null) {
                        failed = new BlockTableReplicationException(regionId, "block table write of " + bytes.byteSize()
                            + " bytes at offset " + offset + " of region " + RegionId.toString(regionId) + " of node " + node.id()
                            + " did not reach " + BackupFailures.describe(replicas, failures) + ": its backups do not know the state of its blocks",
                            failures[i]);
                    } else {
                        failed.addSuppressed(failures[i]);
                    }
                }
            }
            if (failed == null) {
                done.complete(null);
            } else {
                done.completeExceptionally(failed);
            }
        }
    }
}
