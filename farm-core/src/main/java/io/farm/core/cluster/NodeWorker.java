package io.farm.core.cluster;

import io.farm.core.fabric.Capability;
import io.farm.core.fabric.FabricPort;
import io.farm.core.msg.Messenger;
import io.farm.core.node.Worker;
import org.agrona.collections.Long2ObjectHashMap;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What one worker of a node uses to reach the cluster: its fabric port and its messenger. Both
 * are confined to the worker's thread; code running on the worker (tasks, continuations,
 * message handlers) gets it from {@link Node#worker(int)} or from a handler's argument.
 */
public final class NodeWorker {
    private final Node node;
    private final Worker worker;
    private final FabricPort port;
    private final Messenger messenger;
    private final Long2ObjectHashMap<CompletableFuture<Long>> pings = new Long2ObjectHashMap<>();
    // Native, like every segment of farm's production code (docs/decisions.md, Benchmarks).
    private final MemorySegment pingBuffer = Arena.ofAuto().allocate(2 * Long.BYTES, Long.BYTES);
    private long lastPing;

    NodeWorker(Node node, Worker worker, FabricPort port, Messenger messenger) {
        this.node = node;
        this.worker = worker;
        this.port = port;
        this.messenger = messenger;
    }

    /** The node this worker belongs to. */
    public Node node() {
        return node;
    }

    /** The worker thread's event loop (for scheduling continuations with {@code execute}). */
    public Worker worker() {
        return worker;
    }

    /** This worker's index, 0 .. T-1. */
    public int index() {
        return worker.index();
    }

    /** This worker's fabric port (one-sided reads and writes). */
    public FabricPort port() {
        return port;
    }

    /** This worker's messenger (message and log rings to every node). */
    public Messenger messenger() {
        return messenger;
    }

    /** The capability of {@code regionId} on {@code node}, fetched once per node and cached. */
    public Capability capability(int node, int regionId) {
        return this.node.capability(node, regionId);
    }

    /**
     * Sends a ping to {@code node} (a message it answers from its worker of this index) and
     * returns the round-trip time in nanoseconds, completed on this worker.
     */
    public CompletionStage<Long> ping(int node) {
        long sequence = ++lastPing;
        pingBuffer.setAtIndex(ValueLayout.JAVA_LONG, 0, sequence);
        pingBuffer.setAtIndex(ValueLayout.JAVA_LONG, 1, System.nanoTime());
        CompletableFuture<Long> answer = new CompletableFuture<>();
        pings.put(sequence, answer);
        messenger.send(node, Node.PING, pingBuffer, 0, (int) pingBuffer.byteSize());
        return answer;
    }

    void pingAnswered(MemorySegment payload, long offset, int length) {
        if (length != 2 * Long.BYTES) {
            throw new IllegalStateException("malformed ping answer of " + length + " bytes (expected 16); dropped");
        }
        long sequence = payload.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
        long sentAt = payload.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + Long.BYTES);
        CompletableFuture<Long> answer = pings.remove(sequence);
        if (answer != null) {
            answer.complete(System.nanoTime() - sentAt);
        }
    }
}
