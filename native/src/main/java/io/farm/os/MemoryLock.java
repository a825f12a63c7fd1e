package io.farm.os;

import java.lang.foreign.MemorySegment;

/**
 * Locks memory in RAM ({@code mlock}) so that it is never paged out, and unlocks it
 * ({@code munlock}). The pages holding any part of the segment are locked.
 *
 * <p>Locking populates every page of the range: locking a mapping of a sparse region file
 * allocates all of it. Unprivileged processes may lock at most {@code RLIMIT_MEMLOCK} bytes
 * ({@code ulimit -l}); processes with {@code CAP_IPC_LOCK} have no limit.
 */
public final class MemoryLock {
    private MemoryLock() {
    }

    /**
     * Locks the pages of {@code segment} in memory, populating them.
     *
     * @param segment native memory, typically a mapped region or a slice of one
     * @throws IllegalArgumentException if {@code segment} is a heap segment
     * @throws NativeCallException      if the kernel refuses; the message says which limit to raise
     */
    public static void lock(MemorySegment segment) {
        PageRange pages = PageRange.of(segment, "mlock");
        try {
            Libc.mlock(pages.start(), pages.length());
        } catch (NativeCallException e) {
            throw e.withHint(lockHint(e.errno(), pages.length()));
        }
    }

    /**
     * Unlocks the pages of {@code segment}: they may be paged out again. Unlocking memory that is
     * not locked does nothing.
     *
     * @param segment native memory, typically a mapped region or a slice of one
     * @throws IllegalArgumentException if {@code segment} is a heap segment
     * @throws NativeCallException      if part of the range is not mapped
     */
    public static void unlock(MemorySegment segment) {
        PageRange pages = PageRange.of(segment, "munlock");
        Libc.munlock(pages.start(), pages.length());
    }

    private static String lockHint(int errno, long length) {
        String raise = "raise the limit (ulimit -l, LimitMEMLOCK= for a systemd service, memlock in "
            + "/etc/security/limits.conf) or give the process CAP_IPC_LOCK";
        return switch (errno) {
            case Libc.ENOMEM -> "locking " + length + " bytes exceeds what RLIMIT_MEMLOCK (" + memlockLimit()
                + ") still allows this process, or touches unmapped memory; " + raise;
            case Libc.EPERM -> "the process lacks CAP_IPC_LOCK and RLIMIT_MEMLOCK is " + memlockLimit() + "; " + raise;
            case Libc.EAGAIN -> "some of the pages could not be locked: the system is short of memory";
            default -> null;
        };
    }

    private static String memlockLimit() {
        long limit = Libc.softLimit(Libc.RLIMIT_MEMLOCK);
        return limit == Libc.RLIM_INFINITY ? "unlimited" : limit + " bytes";
    }
}
