package io.farm.os;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.BitSet;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Which CPUs the calling thread may run on ({@code sched_setaffinity}, {@code sched_getaffinity})
 * and which one it runs on now ({@code sched_getcpu}). A worker that is asked to be pinned calls
 * {@link #pinCurrentThread(int)} once, from its own thread, before it starts its loop.
 *
 * <p>The kernel's CPU mask is an array of native-endian 64-bit words, bit {@code cpu % 64} of
 * word {@code cpu / 64} standing for CPU {@code cpu}: the layout of {@link BitSet#toLongArray()}.
 */
public final class ThreadAffinity {
    /** Bytes of the mask passed to the kernel: room for every configured CPU, at least glibc's 1024. */
    private static final long MASK_BYTES = Math.max(1024, roundUpTo64(Libc.configuredProcessors())) / 8;

    private ThreadAffinity() {
    }

    /**
     * Pins the calling thread to {@code cpu}: from now on it runs only there, and threads it starts
     * inherit that mask. Returns once the thread runs on {@code cpu}.
     *
     * <p>The accepted range is the CPUs configured in the system rather than
     * {@link Runtime#availableProcessors()}: the JVM counts the calling thread's own mask there, which
     * is 1 once the thread is pinned, and would refuse pinning the thread again.
     *
     * @param cpu the CPU number, from 0 to the number of configured CPUs - 1
     * @throws IllegalArgumentException if {@code cpu} is outside that range
     * @throws IllegalStateException    if the calling thread is virtual: it would pin its carrier
     * @throws NativeCallException      if the kernel refuses, e.g. the CPU is offline or outside the
     *                                  cpuset of this process (the message lists the allowed CPUs)
     */
    public static void pinCurrentThread(int cpu) {
        int configured = Libc.configuredProcessors();
        if (cpu < 0 || cpu >= configured) {
            throw new IllegalArgumentException("cpu " + cpu + " is not accepted: it must be from 0 to " + (configured - 1)
                + " (this system has " + configured + " configured CPUs)");
        }
        if (Thread.currentThread().isVirtual()) {
            throw new IllegalStateException("cannot pin virtual thread " + Thread.currentThread()
                + ": pinning would bind its carrier thread; pin a platform thread");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(MASK_BYTES, JAVA_LONG.byteAlignment()); // zeroed
            mask.setAtIndex(JAVA_LONG, cpu / 64, 1L << (cpu % 64));
            Libc.schedSetaffinity(mask, "{cpu " + cpu + "}");
        } catch (NativeCallException e) {
            throw e.withHint("cpu " + cpu + " is offline or outside this process's cpuset; this thread may run on "
                + allowedCpus());
        }
    }

    /**
     * The CPU the calling thread runs on at the time of the call ({@code sched_getcpu}). Unless the
     * thread is pinned, it may have moved by the time the caller looks at the result.
     *
     * @throws NativeCallException if the kernel cannot tell
     */
    public static int currentCpu() {
        return Libc.schedGetcpu();
    }

    /**
     * The CPUs the calling thread may run on ({@code sched_getaffinity}): bit {@code n} is set when
     * it may run on CPU {@code n}.
     *
     * @throws NativeCallException if the kernel refuses
     */
    public static BitSet allowedCpus() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(MASK_BYTES, JAVA_LONG.byteAlignment());
            Libc.schedGetaffinity(segment);
            return BitSet.valueOf(segment.toArray(JAVA_LONG));
        }
    }

    private static long roundUpTo64(long bits) {
        return (bits + 63) & -64L;
    }
}
