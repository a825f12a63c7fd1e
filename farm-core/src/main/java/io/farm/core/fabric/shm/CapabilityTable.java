package io.farm.core.fabric.shm;

import io.farm.core.fabric.Capability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

import static io.farm.core.fabric.shm.CapabilityTableLayout.CAPACITY;
import static io.farm.core.fabric.shm.CapabilityTableLayout.CAPACITY_OFFSET;
import static io.farm.core.fabric.shm.CapabilityTableLayout.ENTRY_KEY_OFFSET;
import static io.farm.core.fabric.shm.CapabilityTableLayout.ENTRY_REGION_OFFSET;
import static io.farm.core.fabric.shm.CapabilityTableLayout.ENTRY_SIZE_OFFSET;
import static io.farm.core.fabric.shm.CapabilityTableLayout.ENTRY_STATE_OFFSET;
import static io.farm.core.fabric.shm.CapabilityTableLayout.FILE_LENGTH;
import static io.farm.core.fabric.shm.CapabilityTableLayout.HEADER_LENGTH;
import static io.farm.core.fabric.shm.CapabilityTableLayout.INCARNATION_OFFSET;
import static io.farm.core.fabric.shm.CapabilityTableLayout.MAGIC;
import static io.farm.core.fabric.shm.CapabilityTableLayout.MAGIC_OFFSET;
import static io.farm.core.fabric.shm.CapabilityTableLayout.NO_KEY;
import static io.farm.core.fabric.shm.CapabilityTableLayout.OWNER_CLOSED;
import static io.farm.core.fabric.shm.CapabilityTableLayout.OWNER_OPEN;
import static io.farm.core.fabric.shm.CapabilityTableLayout.OWNER_PID_OFFSET;
import static io.farm.core.fabric.shm.CapabilityTableLayout.OWNER_STATE_OFFSET;
import static io.farm.core.fabric.shm.CapabilityTableLayout.VERSION;
import static io.farm.core.fabric.shm.CapabilityTableLayout.VERSION_OFFSET;
import static io.farm.core.fabric.shm.CapabilityTableLayout.entryOffset;
import static io.farm.core.fabric.shm.CapabilityTableLayout.isPublished;

/**
 * One mapped capability table ({@link CapabilityTableLayout}). The owner node writes it through
 * the owner methods, under its own registration lock; peers only read it. Every access that
 * crosses processes goes through a {@link VarHandle} with the ordering the layout describes.
 */
final class CapabilityTable {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment table;
    private final Object fileKey;

    private CapabilityTable(MemorySegment table, Object fileKey) {
        this.table = table;
        this.fileKey = fileKey;
    }

    /**
     * Opens the table of the node whose fabric is starting: reuses a valid table in place (its
     * entry states keep counting, which is what makes peers' seqlock reads safe across a restart)
     * and otherwise installs a fresh one atomically, so that no peer ever maps a half-written
     * header. The caller holds the node's alive lock.
     */
    static CapabilityTable openForOwner(Path file, Arena arena) {
        try {
            CapabilityTable existing = mapIfValid(file, arena, true);
            if (existing != null) {
                return existing;
            }
            Path fresh = file.resolveSibling(file.getFileName() + ".new");
            Files.deleteIfExists(fresh);
            try (FileChannel channel = FileChannel.open(fresh, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer header = ByteBuffer.allocate(HEADER_LENGTH).order(ByteOrder.nativeOrder());
                header.putLong(MAGIC_OFFSET, MAGIC).putInt(VERSION_OFFSET, VERSION).putInt(CAPACITY_OFFSET, CAPACITY);
                channel.write(header, 0);
                // The entries stay sparse zeroes: state 0 (free), key 0.
                channel.write(ByteBuffer.allocate(1), FILE_LENGTH - 1);
            }
            // A peer that mapped an invalid file keeps that mapping; the rename never truncates under it.
            Files.move(fresh, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            CapabilityTable created = mapIfValid(file, arena, true);
            if (created == null) {
                throw new IOException("capability table " + file + " is not valid right after it was created");
            }
            return created;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open capability table " + file, e);
        }
    }

    /**
     * Maps a table: read-write for its owner, read-only for a peer. Returns null if there is no
     * valid table file (the node never started here, or its table is being installed).
     */
    static CapabilityTable mapIfValid(Path file, Arena arena, boolean owner) {
        StandardOpenOption[] options = owner
            ? new StandardOpenOption[] {StandardOpenOption.READ, StandardOpenOption.WRITE}
            : new StandardOpenOption[] {StandardOpenOption.READ};
        try (FileChannel channel = FileChannel.open(file, options)) {
            ByteBuffer header = ByteBuffer.allocate(HEADER_LENGTH).order(ByteOrder.nativeOrder());
            // The header is checked before mapping, so that an invalid file costs no mapping.
            if (channel.size() != FILE_LENGTH || channel.read(header, 0) != HEADER_LENGTH
                || header.getLong(MAGIC_OFFSET) != MAGIC
                || header.getInt(VERSION_OFFSET) != VERSION
                || header.getInt(CAPACITY_OFFSET) != CAPACITY) {
                return null;
            }
            Object fileKey = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
            FileChannel.MapMode mode = owner ? FileChannel.MapMode.READ_WRITE : FileChannel.MapMode.READ_ONLY;
            return new CapabilityTable(channel.map(mode, 0, FILE_LENGTH, arena), fileKey);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot map capability table " + file, e);
        }
    }

    /** The identity (device, inode) of the file this table maps, to notice a replaced file. */
    Object fileKey() {
        return fileKey;
    }

    // ---------------------------------------------------------------- owner side

    /**
     * Starts a new incarnation: marks the owner closed, withdraws what a previous incarnation left
     * published (it died without closing), then publishes pid and incarnation and marks the owner
     * open.
     */
    void beginIncarnation(long pid, long incarnation) {
        LONG.setRelease(table, (long) OWNER_STATE_OFFSET, OWNER_CLOSED);
        withdrawAll();
        table.set(ValueLayout.JAVA_LONG, OWNER_PID_OFFSET, pid);
        table.set(ValueLayout.JAVA_LONG, INCARNATION_OFFSET, incarnation);
        // Release: a peer that sees the owner open sees its pid and incarnation.
        LONG.setRelease(table, (long) OWNER_STATE_OFFSET, OWNER_OPEN);
    }

    /** Ends the incarnation: the owner is closed from now on and every entry is withdrawn. */
    void endIncarnation() {
        // Closed first: a peer that finds a key withdrawn (acquire) also finds the owner closed.
        LONG.setRelease(table, (long) OWNER_STATE_OFFSET, OWNER_CLOSED);
        withdrawAll();
    }

    /** A free entry, or -1 when the table is full. */
    int freeSlot() {
        for (int slot = 0; slot < CAPACITY; slot++) {
            if (!isPublished(table.get(ValueLayout.JAVA_LONG, entryOffset(slot) + ENTRY_STATE_OFFSET))) {
                return slot;
            }
        }
        return -1;
    }

    /** Publishes a registration in a free entry. */
    void publish(int slot, int regionId, long key, long size) {
        long entry = entryOffset(slot);
        long state = table.get(ValueLayout.JAVA_LONG, entry + ENTRY_STATE_OFFSET);
        if (isPublished(state)) {
            throw new IllegalStateException("capability table entry " + slot + " is in use");
        }
        // The withdrawal's state store is visible before the new fields (seqlock writer side).
        VarHandle.releaseFence();
        table.set(ValueLayout.JAVA_LONG, entry + ENTRY_KEY_OFFSET, key);
        table.set(ValueLayout.JAVA_INT, entry + ENTRY_REGION_OFFSET, regionId);
        table.set(ValueLayout.JAVA_LONG, entry + ENTRY_SIZE_OFFSET, size);
        // Release: a peer that loads the odd state (acquire) sees the fields above.
        LONG.setRelease(table, entry + ENTRY_STATE_OFFSET, state + 1);
    }

    /** Withdraws a published entry: its key is refused from now on. */
    void withdraw(int slot) {
        long entry = entryOffset(slot);
        long state = table.get(ValueLayout.JAVA_LONG, entry + ENTRY_STATE_OFFSET);
        if (!isPublished(state)) {
            return;
        }
        LONG.setRelease(table, entry + ENTRY_KEY_OFFSET, NO_KEY);
        LONG.setRelease(table, entry + ENTRY_STATE_OFFSET, state + 1);
    }

    private void withdrawAll() {
        for (int slot = 0; slot < CAPACITY; slot++) {
            withdraw(slot);
        }
    }

    // ---------------------------------------------------------------- peer side

    /** Whether the owner's fabric is open (acquire: its pid and incarnation are then visible). */
    boolean isOwnerOpen() {
        return (long) LONG.getAcquire(table, (long) OWNER_STATE_OFFSET) == OWNER_OPEN;
    }

    /** The pid of the process that last opened the owner's fabric. */
    long ownerPid() {
        return (long) LONG.getAcquire(table, (long) OWNER_PID_OFFSET);
    }

    /** The incarnation of the owner's fabric that last opened it. */
    long incarnation() {
        return (long) LONG.getAcquire(table, (long) INCARNATION_OFFSET);
    }

    /** The key of entry {@code slot} now: one acquire load, the check of every operation. */
    long keyAt(int slot) {
        return (long) LONG.getAcquire(table, entryOffset(slot) + ENTRY_KEY_OFFSET);
    }

    /** The capability of the published registration of {@code regionId}, or null. */
    Capability lookup(int node, int regionId) {
        for (int slot = 0; slot < CAPACITY; slot++) {
            Capability entry = readCapability(node, slot);
            if (entry != null && entry.regionId() == regionId) {
                return entry;
            }
        }
        return null;
    }

    /** The entry that holds exactly {@code capability} (region, key and size) published, or -1. */
    int slotOf(Capability capability) {
        for (int slot = 0; slot < CAPACITY; slot++) {
            if (capability.equals(readCapability(capability.node(), slot))) {
                return slot;
            }
        }
        return -1;
    }

    /** A consistent read of entry {@code slot} (seqlock reader), or null if it is not published. */
    private Capability readCapability(int node, int slot) {
        long entry = entryOffset(slot);
        while (true) {
            long before = (long) LONG.getAcquire(table, entry + ENTRY_STATE_OFFSET);
            // Explicit fence: the field loads stay after the state load (docs/decisions.md).
            VarHandle.acquireFence();
            if (!isPublished(before)) {
                return null;
            }
            long key = table.get(ValueLayout.JAVA_LONG, entry + ENTRY_KEY_OFFSET);
            int regionId = table.get(ValueLayout.JAVA_INT, entry + ENTRY_REGION_OFFSET);
            long size = table.get(ValueLayout.JAVA_LONG, entry + ENTRY_SIZE_OFFSET);
            // The field loads complete before the state is loaded again.
            VarHandle.acquireFence();
            long after = (long) LONG.getAcquire(table, entry + ENTRY_STATE_OFFSET);
            if (before == after) {
                return key == NO_KEY ? null : new Capability(node, regionId, key, size);
            }
        }
    }
}
