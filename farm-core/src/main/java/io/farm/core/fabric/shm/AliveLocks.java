package io.farm.core.fabric.shm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * The {@code alive.lock} files of the nodes this process runs or watches. A node's fabric holds
 * an exclusive lock on its node's {@code alive.lock} for as long as it is open; the OS releases
 * the lock when the process dies, even by SIGKILL, so a free lock means a dead node.
 *
 * <p>POSIX record locks belong to the process, not to a channel: {@link FileChannel#tryLock()}
 * on a file this JVM has locked throws {@link OverlappingFileLockException}, and closing any
 * channel of a file drops every lock the process holds on it. Several fabrics may live in one
 * JVM (tests, embedded clusters), so all of them go through this registry: one channel per lock
 * file (keyed by the file's identity, not its path), closed only when no fabric of the process
 * uses it and the process holds no lock through it, and a record of the locks this process
 * holds. Every method synchronizes on the registry, so a probe never overlaps an acquisition.
 */
final class AliveLocks {
    private static final Map<Object, Handle> FILES = new HashMap<>();
    private static final long RETRY_NANOS = 1_000_000;

    private AliveLocks() {
    }

    /**
     * The shared handle of lock file {@code file}, one more use of it; creates the file if
     * {@code create} (the owner), returns null if it does not exist and not {@code create} (a peer
     * that never started).
     */
    static Handle open(Path file, boolean create) {
        synchronized (FILES) {
            try {
                if (create) {
                    try {
                        // Creating never opens a file this process may hold a lock on: it only succeeds on a new file.
                        Files.createFile(file);
                    } catch (FileAlreadyExistsException e) {
                        // Left by an earlier incarnation: the lock says whether it still runs.
                    }
                }
                Object identity = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
                Handle handle = FILES.get(identity);
                if (handle == null) {
                    handle = new Handle(identity, FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE), file);
                    FILES.put(identity, handle);
                }
                handle.users++;
                return handle;
            } catch (NoSuchFileException e) {
                return null;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open the alive lock " + file, e);
            }
        }
    }

    /** One lock file, shared by every fabric of this process. */
    static final class Handle {
        private final Object identity;
        private final FileChannel channel;
        private final Path file;
        private FileLock held;
        private int users;

        private Handle(Object identity, FileChannel channel, Path file) {
            this.identity = identity;
            this.channel = channel;
            this.file = file;
        }

        /**
         * Takes the lock for this process's fabric of the node. Returns false if an open fabric of
         * this process holds it, or if another process holds it for the whole of
         * {@code patienceNanos} (a peer's probe holds it for microseconds; a live owner for ever).
         */
        boolean tryAcquire(long patienceNanos) {
            long deadline = System.nanoTime() + patienceNanos;
            while (true) {
                synchronized (FILES) {
                    if (held != null) {
                        return false;
                    }
                    FileLock lock = tryLock();
                    if (lock != null) {
                        held = lock;
                        return true;
                    }
                }
                if (System.nanoTime() - deadline > 0) {
                    return false;
                }
                LockSupport.parkNanos(RETRY_NANOS);
            }
        }

        /** Whether an open fabric of this process holds the lock. */
        boolean isHeldByThisProcess() {
            synchronized (FILES) {
                return held != null;
            }
        }

        /** Whether the node runs: its lock is held by this process or by another live process. */
        boolean isHeld() {
            synchronized (FILES) {
                if (held != null) {
                    return true;
                }
                FileLock probe = tryLock();
                if (probe == null) {
                    return true;
                }
                release(probe);
                return false;
            }
        }

        /** Releases the lock this process's fabric took. */
        void release() {
            synchronized (FILES) {
                if (held != null) {
                    release(held);
                    held = null;
                }
            }
        }

        /** One use less; the channel closes with the last use, when no lock is held through it. */
        void close() {
            synchronized (FILES) {
                if (--users > 0 || held != null) {
                    return;
                }
                FILES.remove(identity);
                try {
                    channel.close();
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot close the alive lock " + file, e);
                }
            }
        }

        /** The lock, or null if another process holds it. */
        private FileLock tryLock() {
            try {
                return channel.tryLock();
            } catch (OverlappingFileLockException e) {
                // Some other code of this process locked the file outside the registry: it is held here.
                return null;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot probe the alive lock " + file, e);
            }
        }

        private void release(FileLock lock) {
            try {
                lock.release();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot release the alive lock " + file, e);
            }
        }
    }
}
