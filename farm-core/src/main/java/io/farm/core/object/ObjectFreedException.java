package io.farm.core.object;

import io.farm.alloc.ObjectHeader;
import io.farm.core.addr.GlobalAddress;

/**
 * A read found the object freed: its slot is free, or holds a later incarnation than the fat
 * pointer expected (the object was freed, and the slot possibly reused).
 */
public final class ObjectFreedException extends RuntimeException {
    private final long address;
    private final long expectedIncarnation;
    private final long incarnationWord;

    /**
     * @param expectedIncarnation the fat pointer's incarnation, or -1 when none was expected
     * @param incarnationWord     the slot's incarnation word as read
     */
    public ObjectFreedException(long address, long expectedIncarnation, long incarnationWord) {
        super("object " + GlobalAddress.toString(address) + " was freed: its slot is "
            + (ObjectHeader.isAllocated(incarnationWord) ? "allocated" : "free") + " at incarnation "
            + ObjectHeader.incarnation(incarnationWord)
            + (expectedIncarnation < 0 ? "" : ", the fat pointer expects an allocated object at incarnation " + expectedIncarnation));
        this.address = address;
        this.expectedIncarnation = expectedIncarnation;
        this.incarnationWord = incarnationWord;
    }

    /** The object's address. */
    public long address() {
        return address;
    }

    /** The incarnation the fat pointer expected, -1 for a read without one. */
    public long expectedIncarnation() {
        return expectedIncarnation;
    }

    /** The slot's incarnation word as read ({@link ObjectHeader}'s format). */
    public long incarnationWord() {
        return incarnationWord;
    }
}
