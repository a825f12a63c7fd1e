package io.farm.core.msg;

import io.farm.core.fabric.Capability;
import io.farm.core.fabric.Completion;
import io.farm.core.fabric.FabricPort;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.IntFunction;

/**
 * How the receiver of one ring gives freed space back to its sender (FaRM NSDI'14 §3.1): it
 * writes its head into the sender's copy of the head with one 8-byte one-sided write, lazily,
 * only after it has freed at least half the ring since the previous update.
 *
 * <p>At most one update is in flight: the word it writes from is read when the port performs the
 * write (on the emulated fabrics, in the receiver's port's poll) and must stay unchanged until
 * then, so a new update waits for the previous one's completion (delivered by that poll). The
 * sender sees freed space only once the update has been performed. {@link #freed(long)} is
 * called on every poll of the ring, so a deferred update goes out on the first poll after the
 * completion. A failed update is not retried: the sender is unreachable, and recovery resets
 * the rings of a new configuration.
 *
 * <p>Memory order: the receiver zeroes freed records with plain stores before calling
 * {@link #freed(long)}; the fabric makes the head word visible with release semantics after
 * those stores, and the sender loads its copy with acquire before writing into the space, so
 * a zeroing store never overwrites a newer record.
 *
 * <p>Confined to the thread that owns {@code port}.
 */
public final class HeadReturn {
    private final FabricPort port;
    private final IntFunction<Capability> capabilities;
    private final int senderNode;
    private final long slotOffset;
    private final int threshold;
    private final MemorySegment word;
    /** Completion of an update, whatever its outcome: the next one may go. */
    private final Completion landed = failure -> inFlight = false;
    private Capability target;
    private long returned;
    private boolean inFlight;

    /**
     * @param port         the receiving worker's port
     * @param capabilities the capability of a node's region holding the head copy, by node (called
     *                     once, at the first update)
     * @param senderNode   the node of the ring's sender
     * @param slotOffset   offset of the head copy in that node's region, 8-aligned
     * @param capacity     capacity of the ring
     * @param arena        where the 8-byte source word of the updates is allocated
     */
    public HeadReturn(FabricPort port, IntFunction<Capability> capabilities, int senderNode, long slotOffset,
                      int capacity, Arena arena) {
        this.port = port;
        this.capabilities = capabilities;
        this.senderNode = senderNode;
        this.slotOffset = slotOffset;
        this.threshold = capacity / 2;
        this.word = arena.allocate(Long.BYTES, Long.BYTES);
    }

    /**
     * Reports the receiver's head (bytes freed so far, monotonic); writes it to the sender when
     * at least half the ring was freed since the last update and no update is in flight.
     */
    public void freed(long head) {
        if (inFlight || head - returned < threshold) {
            return;
        }
        if (target == null) {
            target = capabilities.apply(senderNode);
        }
        word.set(RecordDescriptor.WORD_LAYOUT, 0, head);
        inFlight = true;
        returned = head;
        port.write(target, slotOffset, word, 0, Long.BYTES, landed);
    }
}
