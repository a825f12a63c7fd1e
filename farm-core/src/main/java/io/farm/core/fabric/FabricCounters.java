package io.farm.core.fabric;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Operation and byte counts of one port, by kind. Single writer (the port's worker); any
 * thread may take a {@link #snapshot()}. Writes are opaque so readers see recent, untorn
 * values without the writer paying for a fence.
 *
 * <p>A message sent through a ring counts once as a message and also as the one-sided
 * write(s) that carried it, so both "writes per commit" and "messages per commit" can be read.
 */
public final class FabricCounters {
    private static final VarHandle READ_OPS;
    private static final VarHandle READ_BYTES;
    private static final VarHandle WRITE_OPS;
    private static final VarHandle WRITE_BYTES;
    private static final VarHandle MESSAGE_OPS;
    private static final VarHandle MESSAGE_BYTES;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            READ_OPS = lookup.findVarHandle(FabricCounters.class, "readOps", long.class);
            READ_BYTES = lookup.findVarHandle(FabricCounters.class, "readBytes", long.class);
            WRITE_OPS = lookup.findVarHandle(FabricCounters.class, "writeOps", long.class);
            WRITE_BYTES = lookup.findVarHandle(FabricCounters.class, "writeBytes", long.class);
            MESSAGE_OPS = lookup.findVarHandle(FabricCounters.class, "messageOps", long.class);
            MESSAGE_BYTES = lookup.findVarHandle(FabricCounters.class, "messageBytes", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private long readOps;
    private long readBytes;
    private long writeOps;
    private long writeBytes;
    private long messageOps;
    private long messageBytes;

    /** Counts one one-sided read of {@code bytes} bytes. */
    public void recordRead(long bytes) {
        READ_OPS.setOpaque(this, readOps + 1);
        READ_BYTES.setOpaque(this, readBytes + bytes);
    }

    /** Counts one one-sided write of {@code bytes} bytes. */
    public void recordWrite(long bytes) {
        WRITE_OPS.setOpaque(this, writeOps + 1);
        WRITE_BYTES.setOpaque(this, writeBytes + bytes);
    }

    /** Counts one message of {@code bytes} payload bytes (its writes are counted separately). */
    public void recordMessage(long bytes) {
        MESSAGE_OPS.setOpaque(this, messageOps + 1);
        MESSAGE_BYTES.setOpaque(this, messageBytes + bytes);
    }

    /** A consistent-enough copy of the counts, readable from any thread. */
    public FabricStats snapshot() {
        return new FabricStats(
            (long) READ_OPS.getOpaque(this), (long) READ_BYTES.getOpaque(this),
            (long) WRITE_OPS.getOpaque(this), (long) WRITE_BYTES.getOpaque(this),
            (long) MESSAGE_OPS.getOpaque(this), (long) MESSAGE_BYTES.getOpaque(this));
    }
}
