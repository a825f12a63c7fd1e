package io.farm.core.fabric.shm;

import io.farm.core.addr.RegionId;
import io.farm.core.fabric.Capability;
import io.farm.core.fabric.Fabric;
import io.farm.core.fabric.FabricAccounting;
import io.farm.core.fabric.FabricPort;
import io.farm.core.fabric.FabricStats;
import io.farm.core.fabric.PeerUnreachableException;
import io.farm.core.fabric.UnregisteredRegionException;
import io.farm.core.region.Region;
import io.farm.core.region.RegionStore;
import org.agrona.collections.Int2IntHashMap;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fabric of a node that runs as one OS process among others on one host (DESIGN §4). All
 * nodes share a cluster directory, typically under {@code /dev/shm}:
 *
 * <pre>
 *  clusterDir/
 *    node-&lt;id&gt;/
 *      region-&lt;8 hex digits&gt;.mem   the node's regions ({@link RegionStore})
 *      capabilities.tbl          its capability table (layout: {@code CapabilityTableLayout})
 *      alive.lock                locked by its fabric for as long as it is open
 * </pre>
 *
 * <h2>How it emulates the NIC</h2>
 * <ul>
 *   <li><b>One-sided, no target CPU.</b> A peer maps the target's region files shared, lazily
 *       and once (a 2 GiB mapping costs nothing until touched), and the issuing thread copies
 *       straight from or into them with {@link io.farm.core.fabric.DmaEmulation}'s ordering:
 *       writes land with their last word last, reads are consistent per cache line. No thread of
 *       the target process runs for a read or a write; the target may even be stopped.</li>
 *   <li><b>Registration is the NIC's memory table.</b> {@link #register} publishes (region id,
 *       key, size) in the node's capability table, a small file every peer maps. Keys are unique
 *       per registration and carry the fabric's incarnation (random per open), so a capability
 *       from before a deregistration or a restart is refused. Every operation checks, like a NIC
 *       checks an rkey, that the key is still published: one acquire load from the table.</li>
 *   <li><b>Liveness is the connection.</b> The node's fabric holds an exclusive lock on its
 *       {@code alive.lock} for its lifetime; the OS releases it when the process dies, however it
 *       dies. A daemon monitor of every fabric probes the peers it knows every 10 ms (parking in
 *       between, never spinning) and publishes a reachable flag;
 *       an operation to a peer that is not reachable fails through its completion with
 *       {@link PeerUnreachableException} and accesses nothing, as a broken connection would. An
 *       operation issued before the monitor noticed a death (a few milliseconds) still lands in
 *       the dead node's region file, as an RDMA write does in the NVRAM of a machine whose
 *       failure is not yet detected.</li>
 * </ul>
 *
 * Peer mappings are released when the fabric closes; a region file replaced on disk (another
 * inode) is mapped again and its old mapping kept until then. Region files are never created
 * or deleted by the fabric: they belong to the {@link RegionStore}.
 */
public final class ShmFabric implements Fabric {
    /** How long {@link #open} keeps trying to take a free alive lock that a peer's probe holds for a moment. */
    private static final long LOCK_PATIENCE_NANOS = 500_000_000L;
    private static final String TABLE_FILE = "capabilities.tbl";
    private static final String ALIVE_LOCK_FILE = "alive.lock";

    private final Path clusterDir;
    private final int nodeId;
    private final long incarnation;
    private final Arena arena;
    private final AliveLocks.Handle aliveLock;
    private final CapabilityTable table;
    private final Int2IntHashMap slotsByRegion = new Int2IntHashMap(-1);
    private final ConcurrentHashMap<Integer, Peer> peers = new ConcurrentHashMap<>();
    private final FabricAccounting accounting = new FabricAccounting();
    private final PeerMonitor monitor;
    private long registrations;
    private volatile boolean closed;

    private ShmFabric(Path clusterDir, int nodeId, long incarnation, Arena arena, AliveLocks.Handle aliveLock,
                      CapabilityTable table) {
        this.clusterDir = clusterDir;
        this.nodeId = nodeId;
        this.incarnation = incarnation;
        this.arena = arena;
        this.aliveLock = aliveLock;
        this.table = table;
        this.monitor = new PeerMonitor(nodeId, peers.values());
    }

    /**
     * Opens the fabric of node {@code nodeId} in {@code clusterDir}: takes the node's alive lock,
     * starts a new incarnation of its capability table (withdrawing whatever a previous, crashed
     * incarnation left published) and starts the peer monitor.
     *
     * @throws IllegalArgumentException if {@code nodeId} is negative
     * @throws IllegalStateException    if a live process (this one included) runs that node already
     * @throws UncheckedIOException     if the node's files cannot be created or mapped
     */
    public static ShmFabric open(Path clusterDir, int nodeId) {
        if (nodeId < 0) {
            throw new IllegalArgumentException("node id " + nodeId + " is negative: node ids are >= 0");
        }
        Path dir = clusterDir.toAbsolutePath().normalize();
        try {
            Files.createDirectories(RegionStore.nodeDir(dir, nodeId));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the directory of node " + nodeId + " in " + dir, e);
        }
        AliveLocks.Handle lock = AliveLocks.open(aliveLockFile(dir, nodeId), true);
        if (!lock.tryAcquire(LOCK_PATIENCE_NANOS)) {
            boolean here = lock.isHeldByThisProcess();
            lock.close();
            throw new IllegalStateException("node " + nodeId + " is already running in " + dir + ": "
                + (here ? "a fabric of this process (pid " + ProcessHandle.current().pid() + ") has it open"
                    : "process " + ownerPidOf(dir, nodeId) + " holds its alive lock " + aliveLockFile(dir, nodeId))
                + "; each node id runs in one process at a time");
        }
        Arena arena = Arena.ofShared();
        try {
            CapabilityTable table = CapabilityTable.openForOwner(tableFile(dir, nodeId), arena);
            long incarnation = newIncarnation(table.incarnation());
            table.beginIncarnation(ProcessHandle.current().pid(), incarnation);
            ShmFabric fabric = new ShmFabric(dir, nodeId, incarnation, arena, lock, table);
            fabric.monitor.start();
            return fabric;
        } catch (RuntimeException e) {
            lock.release();
            lock.close();
            arena.close();
            throw e;
        }
    }

    /** The capability table file of {@code node}. */
    public static Path tableFile(Path clusterDir, int node) {
        return RegionStore.nodeDir(clusterDir, node).resolve(TABLE_FILE);
    }

    /** The file whose lock says that {@code node} runs. */
    public static Path aliveLockFile(Path clusterDir, int node) {
        return RegionStore.nodeDir(clusterDir, node).resolve(ALIVE_LOCK_FILE);
    }

    /** The cluster directory, absolute. */
    public Path clusterDir() {
        return clusterDir;
    }

    /** The incarnation of this open: random, fresh for every {@link #open}. */
    public long incarnation() {
        return incarnation;
    }

    @Override
    public String kind() {
        return "shm";
    }

    @Override
    public int nodeId() {
        return nodeId;
    }

    /**
     * Registers a region of this node; its file must be the node's file for that region id,
     * {@link RegionStore#fileOf}{@code (clusterDir, nodeId, region.id())}, since that is where
     * peers map it from.
     *
     * @throws IllegalArgumentException if the region's file is elsewhere or has another size
     * @throws IllegalStateException    if the region is registered already, the table is full
     *                                  (1024 regions) or the fabric is closed
     */
    @Override
    public Capability register(Region region) {
        Objects.requireNonNull(region, "region");
        Path expected = RegionStore.fileOf(clusterDir, nodeId, region.id());
        if (!region.file().toAbsolutePath().normalize().equals(expected)) {
            throw new IllegalArgumentException(region + " cannot be registered with the shm fabric of node " + nodeId
                + ": peers map region " + RegionId.toString(region.id()) + " of node " + nodeId + " from " + expected
                + "; create it with a RegionStore of node " + nodeId + " in " + clusterDir);
        }
        long fileSize = fileSize(expected);
        if (fileSize != region.size()) {
            throw new IllegalArgumentException(region + " cannot be registered: its file has " + fileSize
                + " bytes, the region " + region.size());
        }
        synchronized (this) {
            requireOpen();
            if (slotsByRegion.containsKey(region.id())) {
                throw new IllegalStateException("region " + RegionId.toString(region.id()) + " is registered on node "
                    + nodeId + " already");
            }
            int slot = table.freeSlot();
            if (slot < 0) {
                throw new IllegalStateException("node " + nodeId + " has " + CapabilityTableLayout.CAPACITY
                    + " regions registered, the most a capability table holds: deregister one first");
            }
            if (registrations == CapabilityTableLayout.MAX_REGISTRATION_NUMBER) {
                throw new IllegalStateException("node " + nodeId + " made " + registrations
                    + " registrations, the most one incarnation can key: reopen the fabric");
            }
            long key = CapabilityTableLayout.key(incarnation, ++registrations);
            table.publish(slot, region.id(), key, region.size());
            slotsByRegion.put(region.id(), slot);
            return new Capability(nodeId, region.id(), key, region.size());
        }
    }

    @Override
    public synchronized void deregister(int regionId) {
        int slot = slotsByRegion.remove(regionId);
        if (slot < 0) {
            throw new UnregisteredRegionException("region " + RegionId.toString(regionId) + " is not registered on node " + nodeId);
        }
        table.withdraw(slot);
    }

    /**
     * Reads the capability from {@code node}'s table: no CPU of that node is involved.
     *
     * @throws UnregisteredRegionException if the node runs but has no such region registered
     * @throws PeerUnreachableException    if the node does not run (never started, stopped or died)
     */
    @Override
    public Capability capability(int node, int regionId) {
        requireOpen();
        Peer peer = peer(node);
        Peer.View view = peer.refresh();
        if (view == null || !view.isReachable()) {
            throw new PeerUnreachableException(peer.unreachableReason() + ": no capability for region "
                + RegionId.toString(regionId));
        }
        Capability capability = view.table.lookup(node, regionId);
        if (capability == null) {
            throw new UnregisteredRegionException("node " + node + " has no region " + RegionId.toString(regionId) + " registered");
        }
        return capability;
    }

    /** Probes {@code node} now (its alive lock and its table), which also updates what operations see. */
    @Override
    public boolean isReachable(int node) {
        requireOpen();
        if (node < 0) {
            return false;
        }
        Peer.View view = peer(node).refresh();
        return view != null && view.isReachable();
    }

    @Override
    public FabricPort openPort() {
        requireOpen();
        return new ShmPort(this, accounting.newPort());
    }

    @Override
    public FabricStats stats() {
        return accounting.total();
    }

    /**
     * Withdraws every registration (peers see this node stopped at once), stops the monitor,
     * releases the alive lock and unmaps every peer. Ports refuse operations from now on; they
     * must not be in the middle of one.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            table.endIncarnation();
            slotsByRegion.clear();
        }
        monitor.stop();
        for (Peer peer : peers.values()) {
            peer.close();
        }
        aliveLock.release();
        aliveLock.close();
        arena.close();
    }

    @Override
    public String toString() {
        return "ShmFabric[node " + nodeId + ", incarnation " + Long.toHexString(incarnation) + ", " + clusterDir + "]";
    }

    /** The peer {@code node}, monitored from its first reference on. */
    Peer peer(int node) {
        if (node < 0) {
            throw new PeerUnreachableException("node " + node + " does not exist: node ids are >= 0");
        }
        Peer peer = peers.get(node);
        if (peer == null) {
            peer = peers.computeIfAbsent(node, n -> new Peer(n, clusterDir, arena));
        }
        return peer;
    }

    void requireOpen() {
        if (closed) {
            throw new IllegalStateException("shm fabric of node " + nodeId + " is closed");
        }
    }

    private static long newIncarnation(long previous) {
        SecureRandom random = new SecureRandom();
        long incarnation;
        do {
            incarnation = random.nextLong();
            // The high half keys the registrations: never zero and never the previous one.
        } while (incarnation >>> 32 == 0 || incarnation >>> 32 == previous >>> 32);
        return incarnation;
    }

    private static long fileSize(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("region file " + file + " cannot be read: " + e, e);
        }
    }

    /** For messages: the pid recorded in a node's table, or "unknown". */
    private static String ownerPidOf(Path clusterDir, int node) {
        try (Arena confined = Arena.ofConfined()) {
            CapabilityTable table = CapabilityTable.mapIfValid(tableFile(clusterDir, node), confined, false);
            return table == null ? "(pid unknown)" : "pid " + table.ownerPid();
        }
    }
}
