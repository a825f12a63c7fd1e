package io.farm.core.alloc;

import io.farm.alloc.ReclamationEpochs;
import io.farm.core.cluster.Node;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.fabric.FabricException;
import io.farm.core.node.Worker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLongArray;

import static io.farm.core.alloc.AllocationMessageDescriptor.EPOCH_ACK;
import static io.farm.core.alloc.AllocationMessageDescriptor.EPOCH_ADVANCE;
import static io.farm.core.alloc.AllocationMessageDescriptor.EPOCH_MESSAGE_LENGTH;
import static io.farm.core.rpc.RpcMessageDescriptor.STATIC_CONFIGURATION;

/**
 * Distributed epochs for reusing freed memory across size classes (FaRM NSDI'14 §3.5, DESIGN §6):
 * a node's {@link ReclamationEpochs}. Memory freed on this node while {@link #current()} was
 * {@code e} may be reused for another size class once {@link #safe()} {@code >= e}: by then every
 * worker of every member has passed a point where it runs none of the code it ran when the memory
 * was freed.
 *
 * <p><b>Workers.</b> Each worker has a local epoch, published in {@link #workerEpoch(int)}. Once
 * per event-loop step, between callbacks (a point where none of its tasks, continuations or
 * handlers runs), it adopts the node's current epoch if that moved. So a worker whose local epoch
 * is {@code >= e} has passed such a point since the node's epoch became {@code e}; a worker kept
 * busy inside one task holds its epoch back. The minimum over a node's workers is the newest
 * epoch of the node that all its workers have passed.
 *
 * <p><b>Members.</b> {@link #requestAdvance()} opens a new epoch {@code e} (the current epoch
 * moves to {@code e}) and sends an advance for {@code e} to every other member
 * ({@link AllocationMessageDescriptor#EPOCH_ADVANCE}). A member that receives it opens an epoch
 * {@code f} of its own for it, and once all its workers have passed {@code f}, which they can
 * only do after the advance arrived, it acknowledges {@code e}
 * ({@link AllocationMessageDescriptor#EPOCH_ACK}). The requester counts its own workers the same
 * way. {@link #acknowledged(int)} is the newest epoch of this node that a member acknowledged, and
 * {@code safe()} is the minimum over every member, this node included, less one. Each member's
 * epochs are its own numbers: an acknowledgement is an answer to one node's advance, because a
 * member's workers passing some epoch of its own before the advance arrived would prove nothing
 * about memory this node freed since. Advances from several members share no state but the
 * current epoch, which only grows.
 *
 * <p>The allocator reads {@code current()} to tag memory it frees <em>after</em> freeing it (the
 * read is ordered after the free by a full fence): a tag read before would let an advance opened
 * between the read and the free certify a point that preceded the free.
 *
 * <p>A request while an advance is outstanding (not acknowledged by every member) is remembered,
 * and the next advance opens when the outstanding one completes: at most one advance of a node is
 * in flight, however often its allocator asks.
 *
 * <p><b>Operations that span event-loop steps</b> (a lock-free read waiting for its fabric
 * completion, a transaction) bracket themselves with {@link #hold} and {@link #release} (FaRM's
 * {@code lockFreeStart/End}): while a worker holds, it adopts no newer epoch, so no advance it
 * has not passed completes.
 *
 * <p><b>Limits.</b> A member that never acknowledges (dead, or a worker that never
 * returns) stops {@code safe()}: removing it from the configuration is recovery's job, with the
 * leases that bound how long a suspect member may still be running (a later issue).
 */
public final class ClusterEpochs implements ReclamationEpochs {
    /** The epoch every node and worker starts in; {@link #safe()} starts one below it. */
    public static final long FIRST_EPOCH = 1;

    /** Ints per worker in {@link #holds}: a 64-byte line each. */
    private static final int HOLD_STRIDE = 16;
    private static final Runnable WAKE = () -> {
    };

    private final Node node;
    private final int self;
    /** Worker w's local epoch; written by worker w only, with volatile semantics (see {@link #adopt}). */
    private final AtomicLongArray workerEpochs;
    /**
     * Worker w's open {@link #hold}s, at index w * {@value #HOLD_STRIDE}: each worker's count on a cache
     * line of its own, so that workers holding and releasing (twice per lookup) do not write
     * one shared line. Read and written by its worker only.
     */
    private final int[] holds;
    /** By member: the newest epoch of this node that it acknowledged; monotonic, written under {@link #lock}. */
    private final AtomicLongArray acknowledged;
    /** Epoch-message staging per worker (each worker writes only its own); native. */
    private final MemorySegment[] messages;
    private final Object lock = new Object();
    /** The node's epoch; written under {@link #lock} (it only grows), read by anyone. */
    private volatile long current = FIRST_EPOCH;
    /** Advances waiting for every worker to pass their local epoch, in increasing local epoch; guarded by lock. */
    private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
    /** The newest epoch this node opened on its own request; guarded by lock. */
    private long opened = FIRST_EPOCH;
    /** Whether an advance was requested while one was outstanding; guarded by lock. */
    private boolean advanceWanted;

    /**
     * An advance {@code epoch} of {@code requester} that completes when every worker of this node
     * has passed {@code localEpoch} (this node's epoch opened for it).
     */
    private record Waiting(int requester, long epoch, long localEpoch) {
    }

    private ClusterEpochs(Node node) {
        this.node = node;
        this.self = node.id();
        int threads = node.config().threads();
        this.workerEpochs = new AtomicLongArray(threads);
        this.holds = new int[threads * HOLD_STRIDE];
        this.acknowledged = new AtomicLongArray(node.config().size());
        this.messages = new MemorySegment[threads];
        for (int w = 0; w < threads; w++) {
            workerEpochs.set(w, FIRST_EPOCH);
            messages[w] = Arena.ofAuto().allocate(EPOCH_MESSAGE_LENGTH, Long.BYTES);
        }
        for (int m = 0; m < acknowledged.length(); m++) {
            acknowledged.set(m, FIRST_EPOCH);
        }
    }

    /**
     * Attaches epochs to {@code node}: registers the advance and acknowledgement handlers and the
     * epoch check of every worker. Attach every node of a cluster before any requests an advance.
     *
     * @throws IllegalStateException if the node has epochs attached already
     */
    public static ClusterEpochs attach(Node node) {
        ClusterEpochs epochs = new ClusterEpochs(node);
        node.registerSystemHandler(EPOCH_ADVANCE, epochs::onAdvance);
        node.registerSystemHandler(EPOCH_ACK, epochs::onAcknowledgement);
        for (int w = 0; w < node.config().threads(); w++) {
            int index = w;
            Worker worker = node.workers().worker(index);
            // Pollers are added on their worker's thread; until then the worker simply has not adopted a newer epoch.
            worker.execute(() -> {
                NodeWorker context = node.worker(index);
                worker.addPoller(() -> epochs.adopt(context));
            });
        }
        return epochs;
    }

    /**
     * This node's current epoch: the tag of memory freed now. Read it after the free; it issues a
     * full fence first, so the free's writes precede the read.
     */
    @Override
    public long current() {
        VarHandle.fullFence();
        return current;
    }

    /** The newest epoch of this node that every worker of every member has passed since it opened. */
    @Override
    public long safe() {
        return minimumAcknowledged() - 1;
    }

    /**
     * Asks every worker of every member to move on: opens a new epoch and sends the advance, or,
     * when an advance is outstanding, opens the next as soon as it completes. Safe from any thread;
     * never blocks.
     */
    @Override
    public void requestAdvance() {
        long epoch;
        synchronized (lock) {
            if (minimumAcknowledged() < opened) {
                advanceWanted = true;
                return;
            }
            epoch = open();
        }
        NodeWorker here = callingWorker();
        if (here != null) {
            announce(here, epoch);
        } else {
            Worker worker = node.workers().next();
            worker.execute(() -> announce(node.worker(worker.index()), epoch));
        }
    }

    /** The node whose epochs these are. */
    public Node node() {
        return node;
    }

    /** The local epoch of worker {@code index}: the newest epoch of this node it has passed. */
    public long workerEpoch(int index) {
        return workerEpochs.get(index);
    }

    /** The newest epoch of this node that member {@code member} acknowledged ({@link #FIRST_EPOCH} before any). */
    public long acknowledged(int member) {
        return acknowledged.get(member);
    }

    /**
     * Holds {@code worker} in its local epoch until the matching {@link #release}: an operation
     * that spans event-loop steps starts. Holds nest. On the worker's thread only.
     *
     * @throws IllegalStateException if called off {@code worker}'s thread or with another node's worker
     */
    public void hold(NodeWorker worker) {
        requireOwnWorker(worker, "hold");
        holds[worker.index() * HOLD_STRIDE]++;
    }

    /**
     * Ends one {@link #hold} of {@code worker}; after the last, it adopts the node's epoch again.
     *
     * @throws IllegalStateException if the worker holds nothing, or if called off its thread or
     *                               with another node's worker
     */
    public void release(NodeWorker worker) {
        requireOwnWorker(worker, "release");
        if (holds[worker.index() * HOLD_STRIDE] == 0) {
            throw new IllegalStateException("worker " + worker.index() + " of node " + self
                + " holds no epoch: every release follows a hold");
        }
        holds[worker.index() * HOLD_STRIDE]--;
    }

    private void requireOwnWorker(NodeWorker worker, String operation) {
        if (worker.node() != node || !worker.worker().inWorkerThread()) {
            throw new IllegalStateException(operation + " must be called on the thread of a worker of node " + self
                + " with that worker, not on " + Thread.currentThread().getName());
        }
    }

    /** Worker {@code worker}'s poller: adopts the node's epoch and completes the advances all workers have passed. */
    private int adopt(NodeWorker worker) {
        long epoch = current;
        int index = worker.index();
        if (holds[index * HOLD_STRIDE] > 0) {
            return 0;
        }
        if (workerEpochs.getPlain(index) == epoch) {
            return 0;
        }
        // Volatile store, then volatile loads of the others: of two workers adopting at once, at least
        // one sees both new epochs (with release/acquire both could miss the other's, and nobody
        // would complete the advance they both passed).
        workerEpochs.set(index, epoch);
        long passed = Long.MAX_VALUE;
        for (int w = 0; w < workerEpochs.length(); w++) {
            passed = Math.min(passed, workerEpochs.get(w));
        }
        List<Waiting> due = null;
        synchronized (lock) {
            while (!waiting.isEmpty() && waiting.peekFirst().localEpoch() <= passed) {
                if (due == null) {
                    due = new ArrayList<>();
                }
                due.add(waiting.pollFirst());
            }
        }
        if (due != null) {
            for (Waiting advance : due) {
                if (advance.requester() == self) {
                    acknowledge(worker, self, advance.epoch());
                } else {
                    send(worker, advance.requester(), EPOCH_ACK, advance.epoch());
                }
            }
        }
        return 1;
    }

    private void onAdvance(NodeWorker worker, int sender, int type, MemorySegment payload, long offset, int length) {
        long epoch = checkedEpoch("epoch advance", sender, payload, offset, length);
        synchronized (lock) {
            long local = current + 1;
            waiting.addLast(new Waiting(sender, epoch, local));
            current = local;
        }
        wakeWorkers();
    }

    private void onAcknowledgement(NodeWorker worker, int sender, int type, MemorySegment payload, long offset, int length) {
        acknowledge(worker, sender, checkedEpoch("epoch acknowledgement", sender, payload, offset, length));
    }

    /** Records that {@code member} passed {@code epoch} of this node; opens the next advance if one was asked for. */
    private void acknowledge(NodeWorker worker, int member, long epoch) {
        long next;
        synchronized (lock) {
            if (epoch > opened) {
                throw new IllegalArgumentException("malformed epoch acknowledgement from node " + member + ": it acknowledges"
                    + " epoch " + epoch + " of node " + self + ", which has opened epochs up to " + opened + " only; ignored");
            }
            if (epoch > acknowledged.get(member)) {
                acknowledged.set(member, epoch);
            }
            if (!advanceWanted || minimumAcknowledged() < opened) {
                return;
            }
            advanceWanted = false;
            next = open();
        }
        announce(worker, next);
    }

    /** Opens a new epoch of this node's own; under {@link #lock}. Returns it. */
    private long open() {
        long epoch = current + 1;
        waiting.addLast(new Waiting(self, epoch, epoch));
        opened = epoch;
        current = epoch;
        return epoch;
    }

    /** Wakes this node's workers for the new epoch and sends its advance to every other member. */
    private void announce(NodeWorker worker, long epoch) {
        wakeWorkers();
        for (int member = 0; member < acknowledged.length(); member++) {
            if (member != self) {
                send(worker, member, EPOCH_ADVANCE, epoch);
            }
        }
    }

    private void send(NodeWorker worker, int member, int type, long epoch) {
        MemorySegment message = messages[worker.index()];
        AllocationMessageDescriptor.writeEpochMessage(message, 0, STATIC_CONFIGURATION, epoch);
        try {
            worker.messenger().send(member, type, message, 0, EPOCH_MESSAGE_LENGTH);
        } catch (FabricException unreachable) {
            // An unreachable member cannot answer; safe() waits until recovery removes it (see the class comment).
        }
    }

    /** Lets every worker step soon, so that idle (parked) workers adopt the new epoch. */
    private void wakeWorkers() {
        for (int w = 0; w < workerEpochs.length(); w++) {
            try {
                node.workers().worker(w).execute(WAKE);
            } catch (RejectedExecutionException busyOrClosing) {
                // A full inbox means the worker is stepping anyway; a closing worker adopts nothing more.
            }
        }
    }

    private long checkedEpoch(String what, int sender, MemorySegment payload, long offset, int length) {
        AllocationMessageDescriptor.requireLength(what, sender, length, EPOCH_MESSAGE_LENGTH);
        long configuration = AllocationMessageDescriptor.configuration(payload, offset);
        if (configuration != STATIC_CONFIGURATION) {
            throw new IllegalArgumentException(what + " from node " + sender + " was sent in configuration " + configuration
                + "; node " + self + " is in configuration " + STATIC_CONFIGURATION + ": ignored");
        }
        long epoch = AllocationMessageDescriptor.epoch(payload, offset);
        if (epoch < FIRST_EPOCH) {
            throw new IllegalArgumentException("malformed " + what + " from node " + sender + ": epoch " + epoch
                + ", epochs start at " + FIRST_EPOCH + "; ignored");
        }
        return epoch;
    }

    /** Each entry only grows, so a minimum of entries read one after the other is never above the true minimum. */
    private long minimumAcknowledged() {
        long oldest = Long.MAX_VALUE;
        for (int m = 0; m < acknowledged.length(); m++) {
            oldest = Math.min(oldest, acknowledged.get(m));
        }
        return oldest;
    }

    private NodeWorker callingWorker() {
        Worker calling = Worker.current();
        if (calling == null || calling.index() >= workerEpochs.length() || node.workers().worker(calling.index()) != calling) {
            return null;
        }
        return node.worker(calling.index());
    }
}
