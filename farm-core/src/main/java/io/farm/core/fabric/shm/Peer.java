package io.farm.core.fabric.shm;

import io.farm.core.addr.RegionId;
import io.farm.core.fabric.FabricException;
import io.farm.core.region.RegionFiles;
import io.farm.core.region.RegionStore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;

/**
 * A node as one shm fabric sees it (itself included): its capability table, whether it runs,
 * and the mappings of its region files, made on first use and kept until the fabric closes.
 * {@link #refresh()} is called by the {@link PeerMonitor} every few milliseconds and by every
 * slow path; operations only read {@link View#isReachable()}.
 */
final class Peer {
    /** What a refresh found out about the node. */
    enum Liveness {
        RUNNING,
        NOT_STARTED,
        STARTING_OR_STOPPING,
        STOPPED,
        DIED,
        REPLACED,
        UNKNOWN
    }

    private final int node;
    private final Path clusterDir;
    private final Path tableFile;
    private final Path lockFile;
    private final Arena arena;
    private final Map<Integer, MappedRegion> regions = new HashMap<>();
    private volatile View view;
    private volatile String unreachableReason;

    /**
     * @param arena the fabric's arena; the peer's mappings live until it closes
     */
    Peer(int node, Path clusterDir, Arena arena) {
        this.node = node;
        this.clusterDir = clusterDir;
        this.tableFile = ShmFabric.tableFile(clusterDir, node);
        this.lockFile = ShmFabric.aliveLockFile(clusterDir, node);
        this.arena = arena;
        this.unreachableReason = describe(Liveness.NOT_STARTED, 0);
    }

    /**
     * One incarnation of the node's files as mapped here: its capability table and its alive
     * lock. A view whose files were replaced on disk is retired.
     */
    static final class View {
        final CapabilityTable table;
        private final AliveLocks.Handle lock;
        private volatile Liveness liveness = Liveness.STARTING_OR_STOPPING;

        private View(CapabilityTable table, AliveLocks.Handle lock) {
            this.table = table;
            this.lock = lock;
        }

        /** The check of every operation: one volatile load, updated by the last refresh. */
        boolean isReachable() {
            return liveness == Liveness.RUNNING;
        }

        private Liveness probe() {
            boolean locked = lock.isHeld();
            boolean open = table.isOwnerOpen();
            if (locked) {
                return open ? Liveness.RUNNING : Liveness.STARTING_OR_STOPPING;
            }
            return open ? Liveness.DIED : Liveness.STOPPED;
        }
    }

    /**
     * Probes the node now and publishes the outcome to operations. Returns the current view, or
     * null if the node has no valid capability table.
     */
    synchronized View refresh() {
        try {
            View current = view;
            if (current != null) {
                Liveness liveness = current.probe();
                if (liveness == Liveness.RUNNING || !isReplacedOnDisk(current)) {
                    publish(current, liveness);
                    return current;
                }
                retire(current);
            }
            View attached = attach();
            if (attached == null) {
                unreachableReason = describe(Liveness.NOT_STARTED, 0);
                return null;
            }
            view = attached;
            publish(attached, attached.probe());
            return attached;
        } catch (UncheckedIOException e) {
            View current = view;
            if (current != null) {
                current.liveness = Liveness.UNKNOWN;
            }
            unreachableReason = describe(Liveness.UNKNOWN, 0) + ": " + e.getMessage();
            return current;
        }
    }

    /** Why the node was unreachable at the last refresh. */
    String unreachableReason() {
        return unreachableReason;
    }

    /**
     * The memory of the node's region {@code regionId} of {@code size} bytes, mapped shared on
     * first use. A region file replaced on disk (another inode) is mapped again.
     */
    synchronized MemorySegment regionMemory(int regionId, long size) {
        Path file = RegionStore.fileOf(clusterDir, node, regionId);
        try {
            Object identity = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
            MappedRegion mapped = regions.get(regionId);
            if (mapped == null || !mapped.identity.equals(identity) || mapped.memory.byteSize() != size) {
                mapped = new MappedRegion(identity, RegionFiles.mapExisting(file, size, arena));
                regions.put(regionId, mapped);
            }
            return mapped.memory;
        } catch (IOException | UncheckedIOException e) {
            throw new FabricException("node " + node + " published region " + RegionId.toString(regionId)
                + " but its file " + file + " cannot be mapped with " + size + " bytes", e);
        }
    }

    /** Lets go of the alive locks; the mappings go with the fabric's arena. */
    synchronized void close() {
        View current = view;
        if (current != null) {
            retire(current);
        }
    }

    /** Unreachable for ever: ports holding the view go back to the slow path. */
    private void retire(View v) {
        v.liveness = Liveness.REPLACED;
        v.lock.close();
        view = null;
    }

    private void publish(View v, Liveness liveness) {
        if (liveness != Liveness.RUNNING) {
            unreachableReason = describe(liveness, v.table.ownerPid());
        }
        v.liveness = liveness;
    }

    private View attach() {
        AliveLocks.Handle lock = AliveLocks.open(lockFile, false);
        if (lock == null) {
            return null;
        }
        CapabilityTable table = CapabilityTable.mapIfValid(tableFile, arena, false);
        if (table == null) {
            lock.close();
            return null;
        }
        return new View(table, lock);
    }

    private boolean isReplacedOnDisk(View v) {
        try {
            return !Files.readAttributes(tableFile, BasicFileAttributes.class).fileKey().equals(v.table.fileKey());
        } catch (NoSuchFileException e) {
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String describe(Liveness liveness, long pid) {
        return "node " + node + switch (liveness) {
            case RUNNING -> " is running";
            case NOT_STARTED -> " has no capability table at " + tableFile + ": it is not running";
            case STARTING_OR_STOPPING -> " (pid " + pid + ") is starting or stopping its fabric";
            case STOPPED -> " (pid " + pid + ") stopped: it closed its fabric";
            case DIED -> " (pid " + pid + ") died: its alive lock " + lockFile + " is free but it never closed its fabric";
            case REPLACED -> "'s files were replaced";
            case UNKNOWN -> " cannot be probed";
        };
    }

    private record MappedRegion(Object identity, MemorySegment memory) {
    }
}
