package io.farm.core.msg;

import io.farm.core.addr.RegionId;
import io.farm.core.fabric.Capability;
import io.farm.core.fabric.Completion;
import io.farm.core.fabric.Fabric;
import io.farm.core.fabric.FabricPort;
import io.farm.core.region.Region;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.IntFunction;

/**
 * One worker's messaging (FaRM NSDI'14 §3.1, DESIGN §5): what the worker's event loop polls.
 * Worker {@code w} of node {@code R}
 * <ul>
 *   <li>sends to node {@code d} on the rings {@code (R, w)} of {@code d}'s messaging region, one
 *       for messages and one for the transaction log, with one-sided writes through its port;</li>
 *   <li>receives on the rings {@code (s, w)} of its own messaging region, from every node
 *       {@code s} (itself included): the requests of thread {@code w} of every node and the
 *       replies to its own requests (see {@link MessagingLayout}, pairing of threads).</li>
 * </ul>
 * Only one-sided reads and writes of the {@link Fabric} SPI are used, so messaging runs
 * unchanged on every fabric.
 *
 * <p>A full ring is back-pressure: {@code trySend*} returns false; {@code send*} keeps a copy in
 * a per-destination FIFO backlog, flushed in order on every poll and before any newer record
 * to that destination. Space returns to a sender when its receiver has freed half a ring.
 *
 * <p>Every write is posted to the port: a message or log record lands at its receiver when the
 * sender's port performs its write (on the emulated fabrics, in the sender's port's poll, just
 * before the write's completion runs), and a head update reaches the sender when the
 * receiver's port performs it. The worker must therefore keep polling its port as well as this
 * messenger, and a message is only known to have arrived once its completion ran.
 *
 * <p>Every message and log record counts once as a message on the port's counters (its writes
 * are counted by the fabric). Confined to the worker thread that owns the port.
 */
public final class Messenger implements AutoCloseable {
    private static final Completion IGNORE = failure -> {
    };

    private final int node;
    private final int worker;
    private final Arena arena = Arena.ofShared();
    private final Capability[] capabilities;
    private final IntFunction<Capability> fetch;
    private final Outbox messages;
    private final Outbox logs;
    private final MessageRingReceiver[] messageReceivers;
    private final LogRingReceiver[] logReceivers;
    private int nextMessageSource;
    private int nextLogSource;

    /**
     * @param layout       the cluster's messaging layout
     * @param node         this node's id
     * @param worker       this worker's index, 0 .. T-1
     * @param port         this worker's port (the messenger does not close it)
     * @param region       this node's messaging region ({@link MessagingLayout#regionId(int)}, of
     *                     {@link MessagingLayout#regionSize()} bytes, zero when new), registered
     *                     with the fabric
     * @param capabilities the capability of the messaging region of a node, by node; called at most
     *                     once per node, when this worker first writes to that node's region (a
     *                     message, a log record or a head update; see {@link #capabilities(Fabric)})
     * @throws IllegalArgumentException if the node, worker or region do not match the layout
     */
    public Messenger(MessagingLayout layout, int node, int worker, FabricPort port, Region region,
                     IntFunction<Capability> capabilities) {
        if (node < 0 || node >= layout.nodes()) {
            throw new IllegalArgumentException("node " + node + " is not in the cluster: 0.." + (layout.nodes() - 1));
        }
        if (worker < 0 || worker >= layout.threads()) {
            throw new IllegalArgumentException("worker " + worker + " does not exist: 0.." + (layout.threads() - 1));
        }
        if (region.id() != MessagingLayout.regionId(node) || region.size() != layout.regionSize()) {
            throw new IllegalArgumentException(region + " is not the messaging region of node " + node + ": expected "
                + RegionId.toString(MessagingLayout.regionId(node)) + " of " + layout.regionSize() + " bytes");
        }
        this.node = node;
        this.worker = worker;
        this.capabilities = new Capability[layout.nodes()];
        this.fetch = capabilities;
        MemorySegment memory = region.memory();
        this.messages = new Outbox(layout, RingKind.MESSAGE, node, worker, port, memory, this::capabilityOf, arena);
        this.logs = new Outbox(layout, RingKind.LOG, node, worker, port, memory, this::capabilityOf, arena);
        this.messageReceivers = new MessageRingReceiver[layout.nodes()];
        this.logReceivers = new LogRingReceiver[layout.nodes()];
        for (int source = 0; source < layout.nodes(); source++) {
            messageReceivers[source] = new MessageRingReceiver(ring(layout, memory, RingKind.MESSAGE, source), source, worker,
                headReturn(layout, port, RingKind.MESSAGE, source));
            logReceivers[source] = new LogRingReceiver(ring(layout, memory, RingKind.LOG, source), source, worker,
                headReturn(layout, port, RingKind.LOG, source));
        }
    }

    /**
     * The usual capability source: the messaging region of a node, fetched from it through
     * {@code fabric} ({@link Fabric#capability(int, int)}); the messenger caches the result.
     */
    public static IntFunction<Capability> capabilities(Fabric fabric) {
        return peer -> fabric.capability(peer, MessagingLayout.regionId(peer));
    }

    private MemorySegment ring(MessagingLayout layout, MemorySegment memory, RingKind kind, int source) {
        return memory.asSlice(layout.ringOffset(kind, source, worker), layout.capacity(kind));
    }

    private HeadReturn headReturn(MessagingLayout layout, FabricPort port, RingKind kind, int source) {
        return new HeadReturn(port, this::capabilityOf, source, layout.headSlotOffset(kind, node, worker),
            layout.capacity(kind), arena);
    }

    private Capability capabilityOf(int peer) {
        Capability capability = capabilities[peer];
        if (capability == null) {
            capability = fetch.apply(peer);
            capabilities[peer] = capability;
        }
        return capability;
    }

    /**
     * Sends a message of {@code length} bytes of {@code src} at {@code offset} to this worker's
     * peer thread on {@code node}, or returns false and sends nothing when the ring is full or
     * older messages to that node are still backlogged.
     *
     * @param type handler id, 0 .. {@value RecordDescriptor#MAX_TYPE}
     * @throws IllegalArgumentException if the payload exceeds {@link #maxPayloadLength(RingKind)}
     *                                  (the message names it) or another argument is out of range
     */
    public boolean trySend(int node, int type, MemorySegment src, long offset, int length) {
        return messages.trySend(node, type, src, offset, length, IGNORE);
    }

    /**
     * As {@link #trySend(int, int, MemorySegment, long, int)}, with the completion of the
     * message's write (called from the port's poll; a failure means the peer is unreachable).
     */
    public boolean trySend(int node, int type, MemorySegment src, long offset, int length, Completion completion) {
        return messages.trySend(node, type, src, offset, length, completion);
    }

    /**
     * Sends a message now or, when the ring is full, keeps a copy in the backlog of {@code node}
     * to send, in order, as space returns.
     *
     * @throws IllegalArgumentException as {@link #trySend(int, int, MemorySegment, long, int)}
     */
    public void send(int node, int type, MemorySegment src, long offset, int length) {
        messages.send(node, type, src, offset, length, IGNORE);
    }

    /** As {@link #send(int, int, MemorySegment, long, int)}, with the completion of the message's write. */
    public void send(int node, int type, MemorySegment src, long offset, int length, Completion completion) {
        messages.send(node, type, src, offset, length, completion);
    }

    /**
     * Appends a record to this worker's log ring on {@code node}, or returns false and writes
     * nothing when the ring is full or older records to that node are still backlogged.
     *
     * @throws IllegalArgumentException as {@link #trySend(int, int, MemorySegment, long, int)}
     */
    public boolean trySendLog(int node, int type, MemorySegment src, long offset, int length) {
        return logs.trySend(node, type, src, offset, length, IGNORE);
    }

    /**
     * As {@link #trySendLog(int, int, MemorySegment, long, int)}, with the completion of the
     * record's write: once it completes the record is in the receiver's non-volatile memory.
     */
    public boolean trySendLog(int node, int type, MemorySegment src, long offset, int length, Completion completion) {
        return logs.trySend(node, type, src, offset, length, completion);
    }

    /** Appends a log record now or keeps a copy in the log backlog of {@code node}. */
    public void sendLog(int node, int type, MemorySegment src, long offset, int length) {
        logs.send(node, type, src, offset, length, IGNORE);
    }

    /** As {@link #sendLog(int, int, MemorySegment, long, int)}, with the completion of the record's write. */
    public void sendLog(int node, int type, MemorySegment src, long offset, int length, Completion completion) {
        logs.send(node, type, src, offset, length, completion);
    }

    /**
     * Flushes the backlogs, then delivers up to {@code limit} messages from this worker's message
     * rings, starting with a different sender's ring each time, each ring in order; returns how many were delivered.
     *
     * @throws IllegalStateException if a ring holds something that is not a record, or when a
     *                               handler polls the ring delivering to it (handlers may send, not poll)
     */
    public int poll(MessageHandler handler, int limit) {
        flushBacklogs();
        int sources = messageReceivers.length;
        int first = nextMessageSource;
        nextMessageSource = next(first);
        int delivered = 0;
        for (int i = 0; i < sources && delivered < limit; i++) {
            delivered += messageReceivers[(first + i) % sources].poll(handler, limit - delivered);
        }
        return delivered;
    }

    /**
     * Flushes the backlogs, then delivers up to {@code limit} new records from this worker's log
     * rings; returns how many were delivered. Records stay until {@link #truncateLog truncated}.
     *
     * @throws IllegalStateException if a ring holds something that is not a record, or when a
     *                               handler polls the ring delivering to it (handlers may send and
     *                               truncate, not poll)
     */
    public int pollLog(LogHandler handler, int limit) {
        flushBacklogs();
        int sources = logReceivers.length;
        int first = nextLogSource;
        nextLogSource = next(first);
        int delivered = 0;
        for (int i = 0; i < sources && delivered < limit; i++) {
            delivered += logReceivers[(first + i) % sources].poll(handler, limit - delivered);
        }
        return delivered;
    }

    /** The sender polled first next time: senders take turns, so none starves the others. */
    private int next(int source) {
        return source + 1 == messageReceivers.length ? 0 : source + 1;
    }

    /**
     * Truncates the log record at {@code position} of the log ring written by {@code senderNode}
     * (thread {@link #worker()}); its space returns to the sender once every older record of that
     * ring is truncated too.
     *
     * @throws IllegalArgumentException if there is no such delivered, untruncated record
     */
    public void truncateLog(int senderNode, long position) {
        if (senderNode < 0 || senderNode >= logReceivers.length) {
            throw new IllegalArgumentException("node " + senderNode + " is not in the cluster: 0.." + (logReceivers.length - 1));
        }
        logReceivers[senderNode].truncate(position);
    }

    /** Flushes every backlog as far as the rings have room; polls do this first. */
    public void flushBacklogs() {
        messages.flushAll();
        logs.flushAll();
    }

    /** Records of {@code kind} waiting in the backlog of {@code node}. */
    public int backlog(int node, RingKind kind) {
        return (kind == RingKind.MESSAGE ? messages : logs).backlog(node);
    }

    /** Largest payload of a message ({@link RingKind#MESSAGE}) or log record ({@link RingKind#LOG}). */
    public int maxPayloadLength(RingKind kind) {
        return (kind == RingKind.MESSAGE ? messages : logs).maxPayloadLength();
    }

    /** This node's id. */
    public int node() {
        return node;
    }

    /** This worker's index. */
    public int worker() {
        return worker;
    }

    /**
     * Frees the messenger's local staging memory, the source of its writes: close it once its
     * port has no operation outstanding. Backlogged records are dropped; the rings stay in the
     * messaging region.
     */
    @Override
    public void close() {
        arena.close();
    }
}
