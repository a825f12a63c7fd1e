package io.farm.core.msg;

import io.farm.core.addr.RegionId;
import io.farm.core.region.RegionFiles;

/**
 * Layout of a node's messaging region, system region {@code RegionId.system(node, 0)}, in a
 * static cluster of {@code N} nodes (ids {@code 0 .. N-1}) running {@code T} worker threads each.
 * The region holds the rings every sender thread of the cluster (this node included) writes to
 * this node, and this node's copies of the heads of the rings it writes to on other nodes.
 *
 * <pre>
 *  offset 0
 *  +----------------------------------------------+
 *  | message ring (sender node 0, thread 0)       |  messageRingCapacity bytes each,
 *  | message ring (sender node 0, thread 1)       |  ring index s * T + t
 *  | ...                                          |
 *  | message ring (sender node N-1, thread T-1)   |
 *  +----------------------------------------------+  N * T * messageRingCapacity
 *  | log ring (sender node 0, thread 0)           |  logRingCapacity bytes each,
 *  | ...                                          |  ring index s * T + t
 *  | log ring (sender node N-1, thread T-1)       |
 *  +----------------------------------------------+  N * T * (messageRingCapacity + logRingCapacity)
 *  | head copy (receiver node 0, thread 0, MESSAGE)|  one 64-byte line each, 8 bytes used:
 *  | head copy (receiver node 0, thread 0, LOG)   |  slot index (r * T + t) * 2 + kind,
 *  | ...                                          |  written by receiver r with a one-sided
 *  | head copy (receiver N-1, thread T-1, LOG)    |  write, read by this node's thread t
 *  +----------------------------------------------+  usedLength()
 *  | unused, up to the power-of-two region size   |
 *  +----------------------------------------------+  regionSize()
 * </pre>
 *
 * <p>Ring capacities are powers of two of at least 4 KiB, so every ring starts on a page.
 *
 * <p><b>Pairing of threads.</b> Thread {@code t} of node A sends to node B on B's ring
 * {@code (A, t)}, which B's worker {@code t} polls; B's worker {@code t} replies on A's ring
 * {@code (B, t)}, which A's worker {@code t} polls. The reply to a request therefore reaches the
 * worker that issued the request, so continuations run on the issuing thread (FaRM's rule,
 * DESIGN §2), and each ring has exactly one writer thread and one reader thread.
 */
public final class MessagingLayout {
    /** Index of the messaging region among a node's system regions. */
    public static final int REGION_INDEX = 0;
    /** Smallest ring capacity. */
    public static final int MIN_RING_CAPACITY = 4096;
    /** Largest ring capacity. */
    public static final int MAX_RING_CAPACITY = 1 << 30;
    /** Largest cluster: node ids must fit a system region id. */
    public static final int MAX_NODES = RegionId.MAX_NODE + 1;
    /** Largest number of worker threads per node. */
    public static final int MAX_THREADS = 256;
    /** Bytes of one head-copy slot: a cache line of its own, so receivers never share a line. */
    public static final int HEAD_SLOT_LENGTH = 64;

    private final int nodes;
    private final int threads;
    private final int messageRingCapacity;
    private final int logRingCapacity;
    private final long logRingsOffset;
    private final long headSlotsOffset;
    private final long usedLength;
    private final long regionSize;

    /**
     * @param nodes               cluster size N, 1 .. {@value #MAX_NODES}
     * @param threads             worker threads per node T, 1 .. {@value #MAX_THREADS}
     * @param messageRingCapacity bytes of each message ring, a power of two from 4 KiB to 1 GiB
     * @param logRingCapacity     bytes of each log ring, a power of two from 4 KiB to 1 GiB
     * @throws IllegalArgumentException naming the bad parameter and what is accepted, or when the
     *                                  region would exceed the largest region size
     */
    public MessagingLayout(int nodes, int threads, int messageRingCapacity, int logRingCapacity) {
        if (nodes < 1 || nodes > MAX_NODES) {
            throw new IllegalArgumentException("cluster of " + nodes + " nodes is not accepted: 1.." + MAX_NODES);
        }
        if (threads < 1 || threads > MAX_THREADS) {
            throw new IllegalArgumentException(threads + " worker threads per node is not accepted: 1.." + MAX_THREADS);
        }
        checkCapacity("message", messageRingCapacity);
        checkCapacity("log", logRingCapacity);
        this.nodes = nodes;
        this.threads = threads;
        this.messageRingCapacity = messageRingCapacity;
        this.logRingCapacity = logRingCapacity;
        long rings = (long) nodes * threads;
        this.logRingsOffset = rings * messageRingCapacity;
        this.headSlotsOffset = logRingsOffset + rings * logRingCapacity;
        this.usedLength = headSlotsOffset + rings * RingKind.values().length * HEAD_SLOT_LENGTH;
        long size = Math.max(RegionFiles.MIN_REGION_SIZE, Long.highestOneBit(usedLength - 1) << 1);
        if (size > RegionFiles.MAX_REGION_SIZE) {
            throw new IllegalArgumentException("messaging region of " + nodes + " nodes x " + threads
                + " threads with " + messageRingCapacity + "-byte message rings and " + logRingCapacity
                + "-byte log rings needs " + usedLength + " bytes, more than the largest region ("
                + RegionFiles.MAX_REGION_SIZE + " bytes): use fewer or smaller rings");
        }
        this.regionSize = RegionFiles.checkRegionSize(size);
    }

    private static void checkCapacity(String kind, int capacity) {
        if (capacity < MIN_RING_CAPACITY || capacity > MAX_RING_CAPACITY || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException(kind + " ring capacity " + capacity + " is not accepted: it must be a power of two from "
                + MIN_RING_CAPACITY + " (4 KiB) to " + MAX_RING_CAPACITY + " (1 GiB)");
        }
    }

    /** The id of the messaging region of {@code node}. */
    public static int regionId(int node) {
        return RegionId.system(node, REGION_INDEX);
    }

    /** Cluster size N. */
    public int nodes() {
        return nodes;
    }

    /** Worker threads per node T. */
    public int threads() {
        return threads;
    }

    /** Capacity in bytes of each ring of that kind. */
    public int capacity(RingKind kind) {
        return kind == RingKind.MESSAGE ? messageRingCapacity : logRingCapacity;
    }

    /**
     * Offset in the receiver's messaging region of the ring of {@code kind} written by thread
     * {@code senderThread} of {@code senderNode}.
     */
    public long ringOffset(RingKind kind, int senderNode, int senderThread) {
        long index = ringIndex(senderNode, senderThread);
        return kind == RingKind.MESSAGE ? index * messageRingCapacity : logRingsOffset + index * logRingCapacity;
    }

    /**
     * Offset in a sender node's messaging region of its copy of the head of the ring of
     * {@code kind} that it writes on {@code receiverNode} from its thread {@code thread}.
     */
    public long headSlotOffset(RingKind kind, int receiverNode, int thread) {
        return headSlotsOffset + (ringIndex(receiverNode, thread) * RingKind.values().length + kind.ordinal()) * HEAD_SLOT_LENGTH;
    }

    /** Bytes used by rings and head-copy slots. */
    public long usedLength() {
        return usedLength;
    }

    /** Size of the messaging region: {@link #usedLength()} rounded up to a power of two of at least 4 KiB. */
    public long regionSize() {
        return regionSize;
    }

    private long ringIndex(int node, int thread) {
        if (node < 0 || node >= nodes) {
            throw new IllegalArgumentException("node " + node + " is not in the cluster: 0.." + (nodes - 1));
        }
        if (thread < 0 || thread >= threads) {
            throw new IllegalArgumentException("thread " + thread + " does not exist: 0.." + (threads - 1));
        }
        return (long) node * threads + thread;
    }

    @Override
    public String toString() {
        return "MessagingLayout[" + nodes + " nodes x " + threads + " threads, message rings " + messageRingCapacity
            + " B, log rings " + logRingCapacity + " B, region " + regionSize + " B]";
    }
}
