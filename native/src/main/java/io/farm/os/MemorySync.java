package io.farm.os;

import java.lang.foreign.MemorySegment;

/**
 * Writes the dirty pages of a range of a shared file mapping back to the file ({@code msync}).
 * The range may be any slice of a mapping: its start is rounded down to a page boundary.
 *
 * <p>Other processes that map or read the same file see stores at once, through the page cache;
 * syncing matters only for the file's durability on its storage device. On tmpfs (such as
 * {@code /dev/shm}) there is no device and a sync changes nothing that can be observed.
 */
public final class MemorySync {
    private MemorySync() {
    }

    /**
     * Writes the dirty pages of {@code range} to the file and waits until they are written
     * ({@code MS_SYNC}).
     *
     * @param range a slice of a shared file mapping
     * @throws IllegalArgumentException if {@code range} is a heap segment
     * @throws NativeCallException      if part of the range is not mapped, or the write-back failed
     */
    public static void sync(MemorySegment range) {
        msync(range, Libc.MS_SYNC, "msync(MS_SYNC)");
    }

    /**
     * Schedules the write-back of the dirty pages of {@code range} and returns at once
     * ({@code MS_ASYNC}). Linux tracks dirty shared pages and writes them back by itself, so
     * this mostly checks that the range is mapped.
     *
     * @param range a slice of a shared file mapping
     * @throws IllegalArgumentException if {@code range} is a heap segment
     * @throws NativeCallException      if part of the range is not mapped
     */
    public static void scheduleSync(MemorySegment range) {
        msync(range, Libc.MS_ASYNC, "msync(MS_ASYNC)");
    }

    private static void msync(MemorySegment range, int flags, String what) {
        PageRange pages = PageRange.of(range, what);
        try {
            Libc.msync(pages.start(), pages.length(), flags);
        } catch (NativeCallException e) {
            throw e.errno() == Libc.ENOMEM ? e.withHint("part of the range is not mapped") : e;
        }
    }
}
