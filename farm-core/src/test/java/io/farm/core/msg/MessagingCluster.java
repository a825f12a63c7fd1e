package io.farm.core.msg;

import io.farm.core.fabric.Capability;
import io.farm.core.fabric.Fabric;
import io.farm.core.fabric.FabricPort;
import io.farm.core.region.Region;
import io.farm.core.region.RegionStore;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.function.IntFunction;

/**
 * Test fixture: the nodes of a messaging layout, each with its fabric (from a {@link FabricFactory},
 * so any fabric kind can run the ring tests) and its messaging region, created in a cluster
 * directory and registered. Builds the two ends of single rings for ring-level tests.
 */
public final class MessagingCluster implements AutoCloseable {
    private final MessagingLayout layout;
    private final Fabric[] fabrics;
    private final RegionStore[] stores;
    private final Region[] regions;
    private final Arena arena = Arena.ofShared();

    public MessagingCluster(MessagingLayout layout, Path clusterDir, FabricFactory factory) {
        this.layout = layout;
        int nodes = layout.nodes();
        this.fabrics = new Fabric[nodes];
        this.stores = new RegionStore[nodes];
        this.regions = new Region[nodes];
        for (int node = 0; node < nodes; node++) {
            stores[node] = new RegionStore(clusterDir, node, layout.regionSize());
            regions[node] = stores[node].create(MessagingLayout.regionId(node), layout.regionSize());
            fabrics[node] = factory.open(clusterDir, node);
            fabrics[node].register(regions[node]);
        }
    }

    public MessagingLayout layout() {
        return layout;
    }

    public Fabric fabric(int node) {
        return fabrics[node];
    }

    public Region region(int node) {
        return regions[node];
    }

    /** Opens a port of {@code node}'s fabric, confined to the calling thread. */
    public FabricPort port(int node) {
        return fabrics[node].openPort();
    }

    /** A messenger of worker {@code worker} of {@code node}, on {@code port}. */
    public Messenger messenger(int node, int worker, FabricPort port) {
        return new Messenger(layout, node, worker, port, regions[node], Messenger.capabilities(fabrics[node]));
    }

    /** The memory of ring ({@code sender}, {@code thread}) of {@code kind} held by {@code receiver}. */
    public MemorySegment ring(RingKind kind, int sender, int thread, int receiver) {
        return regions[receiver].memory().asSlice(layout.ringOffset(kind, sender, thread), layout.capacity(kind));
    }

    /** The sender's end of ring ({@code sender}, {@code thread}) of {@code kind} on {@code receiver}. */
    public RingWriter writer(RingKind kind, int sender, int thread, int receiver, FabricPort port) {
        Capability target = fabrics[sender].capability(receiver, MessagingLayout.regionId(receiver));
        MemorySegment headCopy = regions[sender].memory().asSlice(layout.headSlotOffset(kind, receiver, thread), Long.BYTES);
        int capacity = layout.capacity(kind);
        return new RingWriter(port, target, layout.ringOffset(kind, sender, thread), capacity, headCopy,
            arena.allocate(capacity, 64));
    }

    /** The receiver's end of message ring ({@code sender}, {@code thread}) on {@code receiver}. */
    public MessageRingReceiver messageReceiver(int sender, int thread, int receiver, FabricPort port) {
        return new MessageRingReceiver(ring(RingKind.MESSAGE, sender, thread, receiver), sender, thread,
            headReturn(RingKind.MESSAGE, sender, thread, receiver, port));
    }

    /** The receiver's end of log ring ({@code sender}, {@code thread}) on {@code receiver}. */
    public LogRingReceiver logReceiver(int sender, int thread, int receiver, FabricPort port) {
        return new LogRingReceiver(ring(RingKind.LOG, sender, thread, receiver), sender, thread,
            headReturn(RingKind.LOG, sender, thread, receiver, port));
    }

    private HeadReturn headReturn(RingKind kind, int sender, int thread, int receiver, FabricPort port) {
        IntFunction<Capability> capabilities = Messenger.capabilities(fabrics[receiver]);
        return new HeadReturn(port, capabilities, sender, layout.headSlotOffset(kind, receiver, thread),
            layout.capacity(kind), arena);
    }

    /** Closes every fabric and deletes every node's files. */
    @Override
    public void close() {
        for (int node = 0; node < fabrics.length; node++) {
            if (fabrics[node] != null) {
                fabrics[node].close();
            }
        }
        for (RegionStore store : stores) {
            if (store != null) {
                store.closeAndDelete();
            }
        }
        arena.close();
    }
}
