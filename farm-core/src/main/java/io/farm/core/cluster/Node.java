package io.farm.core.cluster;

import io.farm.core.addr.RegionId;
import io.farm.core.fabric.Capability;
import io.farm.core.fabric.Fabric;
import io.farm.core.fabric.FabricPort;
import io.farm.core.fabric.FabricStats;
import io.farm.core.fabric.PeerUnreachableException;
import io.farm.core.fabric.UnregisteredRegionException;
import io.farm.core.msg.MessagingLayout;
import io.farm.core.msg.Messenger;
import io.farm.core.msg.RecordDescriptor;
import io.farm.core.config.ClusterConfig;
import io.farm.core.node.IdleStrategies;
import io.farm.core.node.Worker;
import io.farm.core.node.Workers;
import io.farm.core.region.Region;
import io.farm.core.region.RegionStore;
import io.farm.os.ThreadAffinity;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;
import java.util.concurrent.CompletionStage;

/**
 * One FaRM machine (DESIGN §2): it holds regions in files of its directory, registers them with
 * its fabric, and runs {@code T} workers whose event loops poll the fabric's completions and the
 * node's message rings and run application work. Symmetric: every node is storage and compute.
 *
 * <p>A node owns the fabric it is given and closes it. {@link #close()} is a clean departure:
 * workers stop, registrations are withdrawn and the node's files are deleted. A crash leaves the
 * files (the stand-in for non-volatile memory); the next start on the same data directory
 * discards them with a notice, since recovery from them is not implemented yet.
 */
public final class Node implements AutoCloseable {
    /** Message types from here up are farm's own; applications use 0 .. {@code SYSTEM_TYPES - 1}. */
    public static final int SYSTEM_TYPES = 0xFF00;
    /** The system message type of a ping, answered with {@link #PONG}. */
    static final int PING = SYSTEM_TYPES;
    /** The system message type of a ping's answer. */
    static final int PONG = SYSTEM_TYPES + 1;
    /** How long {@link #awaitPeers} waits for one ping's answer before it pings again. */
    private static final long PING_RETRY_NANOS = 100_000_000L;

    private final ClusterConfig config;
    private final int id;
    private final Fabric fabric;
    private final RegionStore regions;
    private final MessagingLayout layout;
    private final Region messagingRegion;
    private final AtomicReferenceArray<NodeMessageHandler> handlers = new AtomicReferenceArray<>(RecordDescriptor.MAX_TYPE + 1);
    private final ConcurrentHashMap<Long, Capability> capabilities = new ConcurrentHashMap<>();
    private final NodeWorker[] contexts;
    private final Workers workers;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Whether pings are answered: peers' {@link #awaitPeers} counts this node up only then. */
    private volatile boolean announced;

    private Node(ClusterConfig config, int id, Fabric fabric, boolean announced) {
        if (id < 0 || id >= config.size()) {
            throw new IllegalArgumentException("node id " + id + " is not a member of cluster " + config.name()
                + ": accepted 0.." + (config.size() - 1));
        }
        if (fabric.nodeId() != id) {
            throw new IllegalArgumentException("the fabric belongs to node " + fabric.nodeId() + ", not node " + id);
        }
        this.config = config;
        this.id = id;
        this.fabric = fabric;
        this.announced = announced;
        discardStaleFiles(config.dataDir(), id);
        this.regions = new RegionStore(config.dataDir(), id, config.regionSize(), config.hugePages());
        this.layout = new MessagingLayout(config.size(), config.threads(), config.messageRingCapacity(),
            config.logRingCapacity());
        this.contexts = new NodeWorker[config.threads()];
        handlers.set(PING, Node::answerPing);
        handlers.set(PONG, (worker, sender, type, payload, offset, length) -> worker.pingAnswered(payload, offset, length));
        try {
            this.messagingRegion = regions.create(MessagingLayout.regionId(id), layout.regionSize());
            fabric.register(messagingRegion);
            this.workers = Workers.start(config.threads(), this::workerBuilder);
        } catch (RuntimeException | Error e) {
            // A node that did not start leaves no mapping and no file behind (its fabric is closed by start).
            regions.closeAndDelete();
            throw e;
        }
    }

    /**
     * Starts node {@code id} of the cluster described by {@code config} over {@code fabric}
     * (which it then owns). Peers may start later: see {@link #awaitPeers(Duration)}.
     *
     * @throws IllegalArgumentException if {@code id} is not a member or the fabric is another node's
     */
    public static Node start(ClusterConfig config, int id, Fabric fabric) {
        return start(config, id, fabric, true);
    }

    /**
     * As {@link #start}, but the node answers no ping until {@link #announce()}: peers waiting for
     * it ({@link #awaitPeers}) wait until then. A node process attaches its services (RPCs,
     * transactions, tables) in between, so that a peer that saw it answer never sends a request
     * it has no handler for yet.
     */
    public static Node startSilent(ClusterConfig config, int id, Fabric fabric) {
        return start(config, id, fabric, false);
    }

    private static Node start(ClusterConfig config, int id, Fabric fabric, boolean announced) {
        try {
            return new Node(config, id, fabric, announced);
        } catch (RuntimeException e) {
            fabric.close();
            throw e;
        }
    }

    /** Starts answering pings (see {@link #startSilent}); does nothing if it does already. */
    public void announce() {
        announced = true;
    }

    private Worker.Builder workerBuilder(int index) {
        Worker.Builder builder = Worker.builder("farm-node" + id + "-worker" + index)
            .idleStrategy(IdleStrategies.create(config.idleStrategy()))
            .onStart(worker -> {
                FabricPort port = fabric.openPort();
                Messenger messenger = new Messenger(layout, id, index, port, messagingRegion, this::messagingCapability);
                NodeWorker context = new NodeWorker(this, worker, port, messenger);
                worker.addPoller(() -> port.poll(Integer.MAX_VALUE));
                worker.addPoller(() -> messenger.poll((senderNode, senderThread, type, payload, offset, length) ->
                    dispatch(context, senderNode, type, payload, offset, length), 64));
                contexts[index] = context;
            })
            .onStop(worker -> {
                NodeWorker context = contexts[index];
                if (context != null) {
                    context.messenger().close();
                    context.port().close();
                }
            });
        if (config.pinsThreads()) {
            builder.pinTo(config.cpuFor(id, index), ThreadAffinity::pinCurrentThread);
        }
        return builder;
    }

    private void dispatch(NodeWorker worker, int senderNode, int type, MemorySegment payload, long offset, int length) {
        NodeMessageHandler handler = handlers.get(type);
        if (handler == null) {
            throw new IllegalStateException("node " + id + " worker " + worker.index() + ": no handler for message type "
                + type + " from node " + senderNode + " (" + length + " bytes); the message is dropped");
        }
        handler.onMessage(worker, senderNode, type, payload, offset, length);
    }

    /**
     * Registers the handler of message type {@code type} (0 .. {@code SYSTEM_TYPES - 1}).
     *
     * @throws IllegalArgumentException if the type is out of range
     * @throws IllegalStateException    if the type has a handler already
     */
    public void registerHandler(int type, NodeMessageHandler handler) {
        if (type < 0 || type >= SYSTEM_TYPES) {
            throw new IllegalArgumentException("message type " + type + " is not accepted: application types are 0.."
                + (SYSTEM_TYPES - 1) + "; " + SYSTEM_TYPES + " and up are farm's own");
        }
        if (!handlers.compareAndSet(type, null, handler)) {
            throw new IllegalStateException("message type " + type + " has a handler on node " + id + " already");
        }
    }

    /**
     * Registers the handler of farm's own message type {@code type} ({@code SYSTEM_TYPES} ..
     * {@value RecordDescriptor#MAX_TYPE}): for farm's components that talk between nodes (region
     * allocation, reclamation epochs, RPCs), which own their type numbers. Applications use
     * {@link #registerHandler}.
     *
     * @throws IllegalArgumentException if the type is not a system type
     * @throws IllegalStateException    if the type has a handler already (ping and pong have theirs)
     */
    public void registerSystemHandler(int type, NodeMessageHandler handler) {
        if (type < SYSTEM_TYPES || type > RecordDescriptor.MAX_TYPE) {
            throw new IllegalArgumentException("message type " + type + " is not a system type: farm's own types are "
                + SYSTEM_TYPES + ".." + RecordDescriptor.MAX_TYPE + "; applications register 0.." + (SYSTEM_TYPES - 1)
                + " with registerHandler");
        }
        if (!handlers.compareAndSet(type, null, handler)) {
            throw new IllegalStateException("system message type " + type + " has a handler on node " + id + " already");
        }
    }

    /** This node's id. */
    public int id() {
        return id;
    }

    /** The cluster configuration. */
    public ClusterConfig config() {
        return config;
    }

    /** The node's fabric. */
    public Fabric fabric() {
        return fabric;
    }

    /** The node's messaging layout. */
    public MessagingLayout messagingLayout() {
        return layout;
    }

    /** The workers' event loops. */
    public Workers workers() {
        return workers;
    }

    /**
     * The context of worker {@code index}; use it only on that worker's thread.
     */
    public NodeWorker worker(int index) {
        return contexts[index];
    }

    /**
     * Runs {@code operation} on worker {@code index} with its context and returns a future
     * completed on that worker.
     */
    public <T> CompletableFuture<T> submit(int index, java.util.function.Function<NodeWorker, CompletionStage<T>> operation) {
        NodeWorker context = contexts[index];
        Supplier<CompletionStage<T>> supplier = () -> operation.apply(context);
        return workers.worker(index).submit(supplier);
    }

    /**
     * Creates, maps and registers a new region of {@code size} bytes held by this node.
     *
     * @throws IllegalStateException if the node holds that region already
     */
    public Region createRegion(int regionId, long size) {
        Region region = regions.create(regionId, size);
        try {
            fabric.register(region);
        } catch (RuntimeException e) {
            // A region that cannot be registered is not kept: the node holds what it registered only.
            regions.delete(regionId);
            throw e;
        }
        return region;
    }

    /**
     * Deletes region {@code regionId} of this node: withdraws its registration (peers' capabilities
     * for it are refused from now on), unmaps it and deletes its file. Its memory must no longer be
     * in use on this node.
     *
     * @throws IllegalArgumentException if the node holds no such region, or it is a system region
     *                                  (they live as long as the node)
     */
    public void deleteRegion(int regionId) {
        if (RegionId.isSystem(regionId)) {
            throw new IllegalArgumentException("region " + RegionId.toString(regionId) + " is a system region of node "
                + RegionId.systemNode(regionId) + ": it lives as long as its node and is not deleted");
        }
        if (regions.get(regionId) == null) {
            throw new IllegalArgumentException("node " + id + " holds no region " + RegionId.toString(regionId));
        }
        capabilities.remove((long) id << 32 | (regionId & 0xFFFF_FFFFL));
        fabric.deregister(regionId);
        regions.delete(regionId);
    }

    /** The region {@code regionId} if this node holds it, else null. */
    public Region region(int regionId) {
        return regions.get(regionId);
    }

    /**
     * The capability of {@code regionId} on {@code node}, fetched from that node once and cached.
     *
     * @throws UnregisteredRegionException if the node has no such region
     * @throws PeerUnreachableException    if the node is unreachable
     */
    public Capability capability(int node, int regionId) {
        long key = (long) node << 32 | (regionId & 0xFFFF_FFFFL);
        Capability capability = capabilities.get(key);
        if (capability == null) {
            capability = fabric.capability(node, regionId);
            capabilities.put(key, capability);
        }
        return capability;
    }

    private Capability messagingCapability(int node) {
        return capability(node, MessagingLayout.regionId(node));
    }

    /**
     * Waits until every other member has registered its messaging region and answered a ping
     * from every worker of this node.
     *
     * @throws IllegalStateException naming the members that did not answer in time
     */
    public void awaitPeers(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int peer = 0; peer < config.size(); peer++) {
            while (true) {
                try {
                    messagingCapability(peer);
                    break;
                } catch (PeerUnreachableException | UnregisteredRegionException e) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("node " + id + ": member " + peer + " of cluster " + config.name()
                            + " did not come up within " + timeout + " (" + e.getMessage() + ")");
                    }
                    sleep(10);
                }
            }
        }
        for (int index = 0; index < contexts.length; index++) {
            for (int peer = 0; peer < config.size(); peer++) {
                int target = peer;
                while (true) {
                    // A peer started silent answers only once it announces: ping again until it does.
                    CompletableFuture<Long> pong = submit(index, w -> w.ping(target));
                    long wait = Math.min(PING_RETRY_NANOS, deadline - System.nanoTime());
                    try {
                        pong.get(Math.max(1, wait), java.util.concurrent.TimeUnit.NANOSECONDS);
                        break;
                    } catch (java.util.concurrent.TimeoutException silent) {
                        if (System.nanoTime() - deadline >= 0) {
                            throw new IllegalStateException("node " + id + ": member " + peer
                                + " did not answer a ping within " + timeout, silent);
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException("node " + id + ": member " + peer + " did not answer a ping: " + e, e);
                    }
                }
            }
        }
    }

    private static void answerPing(NodeWorker worker, int senderNode, int type, MemorySegment payload, long offset, int length) {
        if (worker.node().announced) {
            worker.messenger().send(senderNode, PONG, payload, offset, length);
        }
    }

    /** The fabric accounting of this node: operations and bytes it issued, by kind. */
    public FabricStats stats() {
        return fabric.stats();
    }

    /** Stops the workers, closes the fabric and deletes the node's files. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            workers.close();
        } finally {
            fabric.close();
            regions.closeAndDelete();
        }
    }

    private static void discardStaleFiles(Path dataDir, int id) {
        int discarded = RegionStore.deleteRegionFiles(dataDir, id);
        if (discarded > 0) {
            System.err.println("farm: node " + id + ": discarded " + discarded + " region files of an earlier run in "
                + RegionStore.nodeDir(dataDir, id) + " (recovery from them is not implemented yet)");
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for peers", e);
        }
    }

    @Override
    public String toString() {
        return "Node[" + id + " of " + config.name() + ", " + fabric.kind() + ", " + RegionId.toString(messagingRegion.id()) + "]";
    }
}
