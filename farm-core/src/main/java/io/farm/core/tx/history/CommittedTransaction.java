package io.farm.core.tx.history;

import io.farm.core.addr.GlobalAddress;
import io.farm.core.object.ObjectLayout;

import java.util.Arrays;

/**
 * What one committed transaction did, as the history checker needs it: the versions it read, the
 * versions it wrote (each with the version it overwrote, since a write is also a read of the
 * version it replaces) and its real-time interval. Aborted transactions are not recorded.
 *
 * <ul>
 *   <li><b>versions</b> are the 62-bit object versions of {@link ObjectLayout} (0 ..
 *       {@link ObjectLayout#MAX_VERSION}); every committed write of an object installs a new
 *       version, so an (address, version) pair names exactly one write.</li>
 *   <li><b>interval</b>: {@link #startNanos} is read before the transaction issued its first read
 *       and {@link #commitNanos} after its commit was reported, from one clock shared by every
 *       recorder of a history ({@link System#nanoTime} within one JVM; on one Linux host HotSpot's
 *       {@code nanoTime} is {@code CLOCK_MONOTONIC}, shared by all processes; across hosts widen
 *       every interval by the clock skew bound). A wider interval only removes real-time edges, so
 *       it never produces a false violation.</li>
 *   <li>A transaction writes an object at most once; it may read an object several times, and a
 *       read of two different versions of one object is recorded as such (a non-repeatable read
 *       is then reported as a cycle).</li>
 * </ul>
 * Instances are immutable.
 */
public final class CommittedTransaction {
    private final long id;
    private final long startNanos;
    private final long commitNanos;
    /** Pairs: address, version read. */
    private final long[] reads;
    /** Triples: address, version overwritten, version written. */
    private final long[] writes;

    private CommittedTransaction(long id, long startNanos, long commitNanos, long[] reads, long[] writes) {
        this.id = id;
        this.startNanos = startNanos;
        this.commitNanos = commitNanos;
        this.reads = reads;
        this.writes = writes;
    }

    /** A builder for the transaction {@code id} that started at {@code startNanos}. */
    public static Builder builder(long id, long startNanos) {
        return new Builder(id, startNanos);
    }

    /** The transaction's id, unique in a history. */
    public long id() {
        return id;
    }

    /** When the transaction began, before its first read. */
    public long startNanos() {
        return startNanos;
    }

    /** When the transaction's commit was reported; never before {@link #startNanos}. */
    public long commitNanos() {
        return commitNanos;
    }

    /** How many reads were recorded (writes' overwritten versions not included). */
    public int readCount() {
        return reads.length / 2;
    }

    /** The address of read {@code i}. */
    public long readAddress(int i) {
        return reads[checkIndex(i, readCount(), "read") * 2];
    }

    /** The version observed by read {@code i}. */
    public long readVersion(int i) {
        return reads[checkIndex(i, readCount(), "read") * 2 + 1];
    }

    /** How many objects the transaction wrote. */
    public int writeCount() {
        return writes.length / 3;
    }

    /** The address of write {@code i}. */
    public long writeAddress(int i) {
        return writes[checkIndex(i, writeCount(), "write") * 3];
    }

    /** The version write {@code i} replaced: the version the transaction read and locked. */
    public long overwrittenVersion(int i) {
        return writes[checkIndex(i, writeCount(), "write") * 3 + 1];
    }

    /** The version write {@code i} installed. */
    public long writtenVersion(int i) {
        return writes[checkIndex(i, writeCount(), "write") * 3 + 2];
    }

    private static int checkIndex(int i, int count, String what) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException(what + " " + i + " out of range: 0.." + (count - 1));
        }
        return i;
    }

    /** {@code T<id>}, the name witnesses use. */
    @Override
    public String toString() {
        return "T" + id;
    }

    /** A description of every read and write, for diagnostics. */
    public String describe() {
        StringBuilder text = new StringBuilder(toString())
            .append(" [").append(startNanos).append(", ").append(commitNanos).append("]");
        for (int i = 0; i < readCount(); i++) {
            text.append(" r(").append(GlobalAddress.toString(readAddress(i))).append(" v").append(readVersion(i)).append(')');
        }
        for (int i = 0; i < writeCount(); i++) {
            text.append(" w(").append(GlobalAddress.toString(writeAddress(i)))
                .append(" v").append(overwrittenVersion(i)).append("->v").append(writtenVersion(i)).append(')');
        }
        return text.toString();
    }

    /**
     * Collects the reads and writes of one transaction as it runs; {@link #commit} makes the
     * record. Not thread-safe: one transaction is built by the worker running it.
     */
    public static final class Builder {
        private final long id;
        private final long startNanos;
        private long[] reads = new long[8];
        private int readLongs;
        private long[] writes = new long[6];
        private int writeLongs;
        private boolean committed;

        private Builder(long id, long startNanos) {
            this.id = id;
            this.startNanos = startNanos;
        }

        /**
         * Records a read of {@code version} of the object at {@code address}.
         *
         * @throws IllegalArgumentException if {@code version} is not a 62-bit version
         */
        public Builder read(long address, long version) {
            checkOpen();
            checkVersion(version, "read version");
            if (readLongs + 2 > reads.length) {
                reads = Arrays.copyOf(reads, reads.length * 2);
            }
            reads[readLongs++] = address;
            reads[readLongs++] = version;
            return this;
        }

        /**
         * Records a write of the object at {@code address} that replaced {@code overwrittenVersion}
         * with {@code writtenVersion}.
         *
         * @throws IllegalArgumentException if either version is not a 62-bit version, they are
         *                                  equal, or the transaction already wrote {@code address}
         */
        public Builder write(long address, long overwrittenVersion, long writtenVersion) {
            checkOpen();
            checkVersion(overwrittenVersion, "overwritten version");
            checkVersion(writtenVersion, "written version");
            if (overwrittenVersion == writtenVersion) {
                throw new IllegalArgumentException("write of " + GlobalAddress.toString(address)
                    + " installs the version it overwrote, v" + writtenVersion + ": a write installs a new version");
            }
            for (int i = 0; i < writeLongs; i += 3) {
                if (writes[i] == address) {
                    throw new IllegalArgumentException(
                        "T" + id + " already wrote " + GlobalAddress.toString(address) + ": a transaction writes an object once");
                }
            }
            if (writeLongs + 3 > writes.length) {
                writes = Arrays.copyOf(writes, writes.length * 2);
            }
            writes[writeLongs++] = address;
            writes[writeLongs++] = overwrittenVersion;
            writes[writeLongs++] = writtenVersion;
            return this;
        }

        /**
         * The record of the transaction, committed at {@code commitNanos}. The builder cannot be
         * used afterwards.
         *
         * @throws IllegalArgumentException if {@code commitNanos} is before the start
         * @throws IllegalStateException    if the record was already made
         */
        public CommittedTransaction commit(long commitNanos) {
            checkOpen();
            if (commitNanos < startNanos) {
                throw new IllegalArgumentException(
                    "T" + id + " commits at " + commitNanos + ", before it started at " + startNanos);
            }
            committed = true;
            return new CommittedTransaction(
                id, startNanos, commitNanos, Arrays.copyOf(reads, readLongs), Arrays.copyOf(writes, writeLongs));
        }

        private void checkOpen() {
            if (committed) {
                throw new IllegalStateException("T" + id + " was already committed to a record");
            }
        }

        private static void checkVersion(long version, String what) {
            if (version < 0 || version > ObjectLayout.MAX_VERSION) {
                throw new IllegalArgumentException(what + " " + version + " out of range: 0.." + ObjectLayout.MAX_VERSION);
            }
        }
    }
}
