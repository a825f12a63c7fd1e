package io.farm.bench.check;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The directory through which the processes of a bank check on shm exchange what they must
 * share, all on one host: each node's accounts, history and outcome (each written atomically by
 * its node: written under another name, then renamed), and barriers, one empty file per node
 * that arrived at a phase. A file's rename or creation is visible to every process once done,
 * so a node that sees every node's barrier file also sees every file they wrote before it.
 */
final class ExchangeDirectory {
    private static final long POLL_MILLIS = 1;

    private final Path dir;

    ExchangeDirectory(Path dir) {
        this.dir = dir;
    }

    /** The directory. */
    Path dir() {
        return dir;
    }

    /** Node {@code node}'s accounts ({@link Accounts#store}). */
    Path accounts(int node) {
        return dir.resolve("accounts-" + node + ".txt");
    }

    /** Node {@code node}'s recorded history ({@link HistoryFile}). */
    Path history(int node) {
        return dir.resolve("history-" + node + ".bin");
    }

    /** Node {@code node}'s outcome ({@link NodeOutcome#store}). */
    Path outcome(int node) {
        return dir.resolve("outcome-" + node + ".properties");
    }

    /**
     * Node {@code node} arrives at barrier {@code phase} and waits until all {@code parties}
     * nodes 0..parties-1 did.
     *
     * @throws IllegalStateException if they do not all arrive within {@code timeout}, naming the missing
     */
    void arrive(String phase, int node, int parties, Duration timeout) {
        try {
            Files.createFile(barrier(phase, node));
        } catch (FileAlreadyExistsException e) {
            throw new IllegalStateException("node " + node + " arrived at barrier " + phase + " twice");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot arrive at barrier " + phase + " in " + dir, e);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<Integer> missing = new ArrayList<>();
            for (int other = 0; other < parties; other++) {
                if (!Files.exists(barrier(phase, other))) {
                    missing.add(other);
                }
            }
            if (missing.isEmpty()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("nodes " + missing + " did not arrive at barrier " + phase + " within " + timeout);
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted at barrier " + phase, e);
            }
        }
    }

    private Path barrier(String phase, int node) {
        return dir.resolve(phase + "." + node + ".arrived");
    }
}
