package io.farm.os;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Locale;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The few libc functions farm needs, bound with {@link Linker#nativeLinker()} from the default
 * lookup. Every call that can fail captures {@code errno} right after the call returns
 * ({@link Linker.Option#captureCallState}) and turns a failure into a
 * {@link NativeCallException} naming the call, the errno and its text.
 *
 * <p>The constants are Linux's, identical on x86_64 and aarch64 (asm-generic values).
 */
final class Libc {
    /** errno: operation not permitted. */
    static final int EPERM = 1;
    /** errno: resource temporarily unavailable. */
    static final int EAGAIN = 11;
    /** errno: cannot allocate memory. */
    static final int ENOMEM = 12;
    /** errno: invalid argument. */
    static final int EINVAL = 22;

    /** madvise advice: enable transparent huge pages for the range. */
    static final int MADV_HUGEPAGE = 14;
    /** msync flag: schedule the write-back and return. */
    static final int MS_ASYNC = 1;
    /** msync flag: write back and wait for it. */
    static final int MS_SYNC = 4;
    /** getrlimit resource: bytes of memory that may be locked. */
    static final int RLIMIT_MEMLOCK = 8;
    /** rlim_t value meaning no limit (RLIM_INFINITY, all ones). */
    static final long RLIM_INFINITY = -1L;

    static {
        String os = System.getProperty("os.name");
        String arch = System.getProperty("os.arch");
        if (!os.toLowerCase(Locale.ROOT).startsWith("linux") || !(arch.equals("amd64") || arch.equals("x86_64")
            || arch.equals("aarch64"))) {
            throw new UnsupportedOperationException("farm-native supports Linux on x86_64 and aarch64; this JVM runs on "
                + os + " " + arch);
        }
    }

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    private static final MethodHandle SCHED_SETAFFINITY =
        failing("sched_setaffinity", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS));
    private static final MethodHandle SCHED_GETAFFINITY =
        failing("sched_getaffinity", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS));
    private static final MethodHandle SCHED_GETCPU = failing("sched_getcpu", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle MADVISE =
        failing("madvise", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle MLOCK = failing("mlock", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle MUNLOCK = failing("munlock", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle MSYNC =
        failing("msync", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle GETRLIMIT = failing("getrlimit", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle STRERROR = infallible("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    private static final MethodHandle GETPAGESIZE = infallible("getpagesize", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle GET_NPROCS_CONF = infallible("get_nprocs_conf", FunctionDescriptor.of(JAVA_INT));

    /** Size in bytes of a base page of this machine. */
    static final long PAGE_SIZE = callInt(GETPAGESIZE);

    private Libc() {
    }

    /** Number of processors configured in the system ({@code get_nprocs_conf}), online or not. */
    static int configuredProcessors() {
        return callInt(GET_NPROCS_CONF);
    }

    /** {@code sched_setaffinity(0, mask.byteSize(), mask)}: sets the calling thread's CPU mask. */
    static void schedSetaffinity(MemorySegment mask, String maskText) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int result = (int) SCHED_SETAFFINITY.invokeExact(state, 0, mask.byteSize(), mask);
            if (result == -1) {
                throw failure(state, "sched_setaffinity(0, " + mask.byteSize() + ", " + maskText + ")");
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@code sched_getaffinity(0, mask.byteSize(), mask)}: reads the calling thread's CPU mask. */
    static void schedGetaffinity(MemorySegment mask) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int result = (int) SCHED_GETAFFINITY.invokeExact(state, 0, mask.byteSize(), mask);
            if (result == -1) {
                throw failure(state, "sched_getaffinity(0, " + mask.byteSize() + ", mask)");
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@code sched_getcpu()}: the CPU the calling thread runs on. */
    static int schedGetcpu() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int cpu = (int) SCHED_GETCPU.invokeExact(state);
            if (cpu == -1) {
                throw failure(state, "sched_getcpu()");
            }
            return cpu;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@code madvise(address, length, advice)}; {@code address} must be page aligned. */
    static void madvise(long address, long length, int advice, String adviceName) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int result = (int) MADVISE.invokeExact(state, MemorySegment.ofAddress(address), length, advice);
            if (result == -1) {
                throw failure(state, "madvise(" + hex(address) + ", " + length + ", " + adviceName + ")");
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@code mlock(address, length)}: locks the pages of the range in memory, populating them. */
    static void mlock(long address, long length) {
        lockCall(MLOCK, "mlock", address, length);
    }

    /** {@code munlock(address, length)}: lets the pages of the range be paged out again. */
    static void munlock(long address, long length) {
        lockCall(MUNLOCK, "munlock", address, length);
    }

    /** {@code msync(address, length, flags)}; {@code address} must be page aligned. */
    static void msync(long address, long length, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int result = (int) MSYNC.invokeExact(state, MemorySegment.ofAddress(address), length, flags);
            if (result == -1) {
                String flagName = flags == MS_SYNC ? "MS_SYNC" : flags == MS_ASYNC ? "MS_ASYNC" : Integer.toString(flags);
                throw failure(state, "msync(" + hex(address) + ", " + length + ", " + flagName + ")");
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** The soft limit of {@code resource} ({@code getrlimit}), {@link #RLIM_INFINITY} when unlimited. */
    static long softLimit(int resource) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            // struct rlimit { rlim_t rlim_cur; rlim_t rlim_max; }, rlim_t being 64-bit here.
            MemorySegment limit = arena.allocate(JAVA_LONG, 2);
            int result = (int) GETRLIMIT.invokeExact(state, resource, limit);
            if (result == -1) {
                throw failure(state, "getrlimit(" + resource + ")");
            }
            return limit.getAtIndex(JAVA_LONG, 0);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** The text libc gives for {@code errno} ({@code strerror}). */
    static String strerror(int errno) {
        try {
            MemorySegment text = (MemorySegment) STRERROR.invokeExact(errno);
            return text.equals(MemorySegment.NULL) ? "unknown error" : text.reinterpret(Integer.MAX_VALUE).getString(0);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@code address} rounded down to a multiple of {@link #PAGE_SIZE}. */
    static long pageAlignDown(long address) {
        return address & -PAGE_SIZE;
    }

    /** {@code value} as {@code 0x...}, the way addresses appear in messages. */
    static String hex(long value) {
        return "0x" + Long.toHexString(value);
    }

    private static void lockCall(MethodHandle handle, String name, long address, long length) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int result = (int) handle.invokeExact(state, MemorySegment.ofAddress(address), length);
            if (result == -1) {
                throw failure(state, name + "(" + hex(address) + ", " + length + ")");
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static NativeCallException failure(MemorySegment state, String call) {
        int errno = (int) ERRNO.get(state, 0L);
        return new NativeCallException(call, errno, strerror(errno), null);
    }

    private static int callInt(MethodHandle handle) {
        try {
            return (int) handle.invokeExact();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** Binds a function that reports failure through errno: the handle takes the call-state segment first. */
    private static MethodHandle failing(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(symbol(name), descriptor, CAPTURE_ERRNO);
    }

    /** Binds a function that cannot fail. */
    private static MethodHandle infallible(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(symbol(name), descriptor);
    }

    private static MemorySegment symbol(String name) {
        return LIBC.find(name).orElseThrow(() -> new UnsupportedOperationException(
            "libc function " + name + " not found by the native linker's default lookup"));
    }
}
