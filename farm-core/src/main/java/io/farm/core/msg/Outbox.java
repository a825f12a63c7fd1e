package io.farm.core.msg;

import io.farm.core.fabric.Capability;
import io.farm.core.fabric.Completion;
import io.farm.core.fabric.FabricPort;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.IntFunction;

/**
 * One worker's sending side for one kind of ring: a {@link RingWriter} per destination node,
 * created on the first send there, and a {@link SendBacklog} per destination for records that
 * found the ring full. A destination's backlog is flushed, in order, before any newer record is
 * sent there. Confined to the worker.
 */
final class Outbox {
    private final MessagingLayout layout;
    private final RingKind kind;
    private final int node;
    private final int worker;
    private final FabricPort port;
    private final MemorySegment localRegion;
    private final IntFunction<Capability> capabilities;
    private final Arena arena;
    private final RingWriter[] writers;
    private final SendBacklog[] backlogs;
    private int backlogged;

    Outbox(MessagingLayout layout, RingKind kind, int node, int worker, FabricPort port, MemorySegment localRegion,
           IntFunction<Capability> capabilities, Arena arena) {
        this.layout = layout;
        this.kind = kind;
        this.node = node;
        this.worker = worker;
        this.port = port;
        this.localRegion = localRegion;
        this.capabilities = capabilities;
        this.arena = arena;
        this.writers = new RingWriter[layout.nodes()];
        this.backlogs = new SendBacklog[layout.nodes()];
    }

    /** Sends now, or returns false (sending nothing) when the ring or the backlog before it is full. */
    boolean trySend(int destination, int type, MemorySegment src, long offset, int length, Completion completion) {
        RingWriter writer = writer(destination);
        writer.checkRecord(type, src, offset, length);
        return flush(destination) && writer.offer(type, src, offset, length, completion);
    }

    /** Sends now, or queues a copy behind the destination's backlog. */
    void send(int destination, int type, MemorySegment src, long offset, int length, Completion completion) {
        RingWriter writer = writer(destination);
        writer.checkRecord(type, src, offset, length);
        if (flush(destination) && writer.offer(type, src, offset, length, completion)) {
            return;
        }
        SendBacklog backlog = backlogs[destination];
        if (backlog == null) {
            backlog = backlogs[destination] = new SendBacklog();
        }
        if (backlog.isEmpty()) {
            backlogged++;
        }
        backlog.add(type, src, offset, length, completion);
    }

    /** Flushes every destination's backlog as far as its ring has room. */
    void flushAll() {
        for (int destination = 0; backlogged > 0 && destination < backlogs.length; destination++) {
            flush(destination);
        }
    }

    /** Records queued for {@code destination}. */
    int backlog(int destination) {
        checkNode(destination);
        SendBacklog backlog = backlogs[destination];
        return backlog == null ? 0 : backlog.size();
    }

    /** Largest payload of this kind of ring. */
    int maxPayloadLength() {
        return RecordDescriptor.maxPayloadLength(layout.capacity(kind));
    }

    /** Flushes one destination's backlog; returns whether it is empty. */
    private boolean flush(int destination) {
        SendBacklog backlog = backlogs[destination];
        if (backlog == null || backlog.isEmpty()) {
            return true;
        }
        boolean empty = backlog.flush(writers[destination]);
        if (empty) {
            backlogged--;
        }
        return empty;
    }

    private RingWriter writer(int destination) {
        checkNode(destination);
        RingWriter writer = writers[destination];
        if (writer == null) {
            int capacity = layout.capacity(kind);
            MemorySegment headCopy = localRegion.asSlice(layout.headSlotOffset(kind, destination, worker), Long.BYTES);
            writer = new RingWriter(port, capabilities.apply(destination), layout.ringOffset(kind, node, worker), capacity,
                headCopy, arena.allocate(capacity, MessagingLayout.HEAD_SLOT_LENGTH));
            writers[destination] = writer;
        }
        return writer;
    }

    private void checkNode(int destination) {
        if (destination < 0 || destination >= writers.length) {
            throw new IllegalArgumentException("node " + destination + " is not in the cluster: 0.." + (writers.length - 1));
        }
    }
}
