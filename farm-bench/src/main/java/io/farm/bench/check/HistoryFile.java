package io.farm.bench.check;

import io.farm.core.tx.history.CommittedTransaction;
import io.farm.core.tx.history.History;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A recorded {@link History} in a file: how a node process of the bank check hands its history
 * to the checking process. Big-endian, as {@link DataOutputStream} writes:
 * <pre>
 *   0        8        16       24
 *   +--------+--------+--------+
 *   | MAGIC  | dropped| count  |            header
 *   +--------+--------+--------+
 *   then {@code count} transactions, each:
 *   +----+-------+--------+-------+--------+---------------------------+------------------------------------------+
 *   | id | start | commit | reads | writes | reads x (address, version) | writes x (address, overwritten, written) |
 *   +----+-------+--------+-------+--------+---------------------------+------------------------------------------+
 *     8     8       8        4       4       16 bytes each              24 bytes each
 * </pre>
 * {@code start} and {@code commit} are {@link System#nanoTime} values: on one Linux host every
 * JVM reads CLOCK_MONOTONIC, so the intervals of several processes' histories can be compared.
 */
final class HistoryFile {
    /** "FARMHIS1". */
    static final long MAGIC = 0x4641524d48495331L;

    private HistoryFile() {
    }

    /** Writes {@code history} to {@code file}, atomically: a reader sees the whole file or none. */
    static void write(History history, Path file) {
        Path partial = file.resolveSibling(file.getFileName() + ".partial");
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(partial), 1 << 16))) {
            out.writeLong(MAGIC);
            out.writeLong(history.dropped());
            out.writeLong(history.transactions().size());
            for (CommittedTransaction transaction : history.transactions()) {
                out.writeLong(transaction.id());
                out.writeLong(transaction.startNanos());
                out.writeLong(transaction.commitNanos());
                out.writeInt(transaction.readCount());
                out.writeInt(transaction.writeCount());
                for (int i = 0; i < transaction.readCount(); i++) {
                    out.writeLong(transaction.readAddress(i));
                    out.writeLong(transaction.readVersion(i));
                }
                for (int i = 0; i < transaction.writeCount(); i++) {
                    out.writeLong(transaction.writeAddress(i));
                    out.writeLong(transaction.overwrittenVersion(i));
                    out.writeLong(transaction.writtenVersion(i));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the history to " + partial, e);
        }
        try {
            Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot move the history to " + file, e);
        }
    }

    /**
     * Reads a history {@link #write} wrote.
     *
     * @throws IllegalStateException if the file is no history file, is truncated or has bytes after its end
     */
    static History read(Path file) {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16))) {
            long magic = in.readLong();
            if (magic != MAGIC) {
                throw new IllegalStateException(file + " is no history file: it starts with " + Long.toHexString(magic)
                    + ", not " + Long.toHexString(MAGIC));
            }
            long dropped = in.readLong();
            long count = in.readLong();
            if (dropped < 0 || count < 0 || count > Integer.MAX_VALUE) {
                throw new IllegalStateException(file + " has a corrupt header: dropped " + dropped + ", count " + count);
            }
            List<CommittedTransaction> transactions = new ArrayList<>((int) count);
            for (long t = 0; t < count; t++) {
                CommittedTransaction.Builder builder = CommittedTransaction.builder(in.readLong(), in.readLong());
                long commit = in.readLong();
                int reads = in.readInt();
                int writes = in.readInt();
                if (reads < 0 || writes < 0) {
                    throw new IllegalStateException(file + ": transaction " + t + " has " + reads + " reads and " + writes + " writes");
                }
                for (int i = 0; i < reads; i++) {
                    builder.read(in.readLong(), in.readLong());
                }
                for (int i = 0; i < writes; i++) {
                    builder.write(in.readLong(), in.readLong(), in.readLong());
                }
                transactions.add(builder.commit(commit));
            }
            if (in.read() >= 0) {
                throw new IllegalStateException(file + " has bytes after its " + count + " transactions");
            }
            return new History(transactions, dropped);
        } catch (EOFException e) {
            throw new IllegalStateException(file + " is truncated: it ends inside its header or a transaction");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the history in " + file, e);
        }
    }
}
