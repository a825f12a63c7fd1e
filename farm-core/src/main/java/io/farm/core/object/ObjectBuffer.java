package io.farm.core.object;

import io.farm.alloc.ObjectHeader;
import io.farm.core.addr.GlobalAddress;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A consistent copy of one version of an object, in the stored layout ({@link ObjectLayout}),
 * as a lock-free read returns it: the application reads its bytes through {@link #copyTo} or
 * {@link #toByteArray} and never sees the version words. Confined to the worker that read it.
 */
public final class ObjectBuffer {
    private final long address;
    private final int size;
    private final MemorySegment stored;
    private final int reads;

    /**
     * @param stored a consistent copy of the object, at offset 0, of at least
     *               {@code ObjectLayout.storedSize(size)} bytes
     * @param reads  the fabric reads it took
     */
    ObjectBuffer(long address, int size, MemorySegment stored, int reads) {
        this.address = address;
        this.size = size;
        this.stored = stored;
        this.reads = reads;
    }

    /**
     * A buffer over {@code stored}, a copy of the object at {@code address} in the stored layout
     * at offset 0 (of at least {@code ObjectLayout.storedSize(size)} bytes), made by farm's
     * transactions (a new object, a transaction's own view of an object it wrote); counts no read.
     *
     * @throws IllegalArgumentException if {@code stored} is too small for {@code size}
     */
    public static ObjectBuffer of(long address, int size, MemorySegment stored) {
        if (stored.byteSize() < ObjectLayout.storedSize(size)) {
            throw new IllegalArgumentException("a copy of " + stored.byteSize() + " bytes cannot hold an object of "
                + size + " application bytes: it needs " + ObjectLayout.storedSize(size));
        }
        return new ObjectBuffer(address, size, stored, 0);
    }

    /** The object's address. */
    public long address() {
        return address;
    }

    /** Its application size. */
    public int size() {
        return size;
    }

    /** The version of this copy (the version word without its lock mode). */
    public long version() {
        return ObjectLayout.version(stored.get(ValueLayout.JAVA_LONG, ObjectLayout.VERSION_OFFSET));
    }

    /** The incarnation of this copy (FaRM's {@code objGetIncarnation}). */
    public long objGetIncarnation() {
        return ObjectHeader.incarnation(incarnationWord());
    }

    /**
     * Increments the incarnation of this copy, keeping it allocated (FaRM's
     * {@code objIncrementIncarnation}): once a transaction writes the copy back, fat pointers made
     * before no longer match, although the object was not freed.
     */
    public void objIncrementIncarnation() {
        stored.set(ValueLayout.JAVA_LONG, ObjectLayout.INCARNATION_OFFSET, incarnationWord() + 2);
    }

    /** A fat pointer to this object at this copy's incarnation. */
    public FatPointer fatPointer() {
        return new FatPointer(address, size, objGetIncarnation());
    }

    /** Copies the application bytes to {@code dst} at {@code offset}. */
    public void copyTo(MemorySegment dst, long offset) {
        ObjectLayout.toApplication(stored, 0, dst, offset, size);
    }

    /** The application bytes. */
    public byte[] toByteArray() {
        byte[] bytes = new byte[size];
        copyTo(MemorySegment.ofArray(bytes), 0);
        return bytes;
    }

    /** The copy in the stored layout (what a commit writes back). */
    public MemorySegment stored() {
        return stored;
    }

    /** Fabric reads this lock-free read took: one per attempt. */
    public int reads() {
        return reads;
    }

    /** Attempts that found an inconsistent copy and were retried: {@code reads() - 1}. */
    public int retries() {
        return reads - 1;
    }

    private long incarnationWord() {
        return stored.get(ValueLayout.JAVA_LONG, ObjectLayout.INCARNATION_OFFSET);
    }

    @Override
    public String toString() {
        return "ObjectBuffer[" + GlobalAddress.toString(address) + ", size " + size + ", version " + version()
            + ", incarnation " + objGetIncarnation() + ", " + reads + " reads]";
    }
}
