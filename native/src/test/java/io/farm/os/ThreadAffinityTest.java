package io.farm.os;

import org.junit.jupiter.api.Test;

import java.util.BitSet;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ThreadAffinityTest {
    /** Pinning changes the mask of the calling thread, so every pinning test runs in a thread of its own. */
    private static void inFreshThread(Runnable body) throws Throwable {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = Thread.ofPlatform().name("affinity-test").start(() -> {
            try {
                body.run();
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        thread.join();
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    @Test
    void pinningToAnAllowedCpuRunsTheThreadThereOnly() throws Throwable {
        BitSet allowed = ThreadAffinity.allowedCpus();
        assertFalse(allowed.isEmpty());
        for (int cpu = allowed.nextSetBit(0); cpu >= 0; cpu = allowed.nextSetBit(cpu + 1)) {
            int target = cpu;
            inFreshThread(() -> {
                ThreadAffinity.pinCurrentThread(target);
                assertEquals(target, ThreadAffinity.currentCpu());
                BitSet only = new BitSet();
                only.set(target);
                assertEquals(only, ThreadAffinity.allowedCpus());
            });
        }
    }

    @Test
    void aPinnedThreadCanBePinnedAgainElsewhere() throws Throwable {
        BitSet allowed = ThreadAffinity.allowedCpus();
        int first = allowed.nextSetBit(0);
        int last = allowed.previousSetBit(allowed.length());
        inFreshThread(() -> {
            ThreadAffinity.pinCurrentThread(first);
            ThreadAffinity.pinCurrentThread(last);
            assertEquals(last, ThreadAffinity.currentCpu());
        });
    }

    @Test
    void cpuOutsideTheConfiguredRangeIsRejectedAndChangesNothing() throws Throwable {
        int configured = Libc.configuredProcessors();
        inFreshThread(() -> {
            BitSet before = ThreadAffinity.allowedCpus();
            for (int bad : new int[] {-1, configured, Integer.MAX_VALUE}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ThreadAffinity.pinCurrentThread(bad));
                assertTrue(e.getMessage().contains("cpu " + bad + " is not accepted"), e.getMessage());
                assertTrue(e.getMessage().contains("from 0 to " + (configured - 1)), e.getMessage());
            }
            assertEquals(before, ThreadAffinity.allowedCpus());
        });
    }

    @Test
    void pinningAVirtualThreadIsRefused() throws Throwable {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread.ofVirtual().start(() -> {
            try {
                ThreadAffinity.pinCurrentThread(0);
            } catch (Throwable t) {
                thrown.set(t);
            }
        }).join();
        assertTrue(thrown.get() instanceof IllegalStateException, String.valueOf(thrown.get()));
        assertTrue(thrown.get().getMessage().contains("virtual thread"), thrown.get().getMessage());
    }

    @Test
    void theCurrentCpuIsOneOfTheAllowedCpus() throws Throwable {
        inFreshThread(() -> {
            int cpu = ThreadAffinity.currentCpu();
            assertTrue(ThreadAffinity.allowedCpus().get(cpu), "cpu " + cpu);
        });
    }
}
