package io.farm.core.fabric;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * How emulated fabrics copy memory so that they keep the guarantees an RDMA NIC gives
 * (DESIGN §4): writes whose last 8-byte word becomes visible last, and reads that are
 * consistent per 64-byte cache line with respect to writers following the line-version
 * protocol.
 */
public final class DmaEmulation {
    /** Size of a cache line, the unit of read consistency. */
    public static final int LINE = 64;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final int TAIL = Long.BYTES;

    private DmaEmulation() {
    }

    /**
     * Copies {@code length} bytes so that the last 8-byte word is stored after, and with release
     * semantics relative to, every earlier byte: a target that sees the last word non-zero
     * (with an acquire load) sees the whole write.
     */
    public static void orderedWrite(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, int length) {
        int tail = Math.min(TAIL, length);
        long body = length - tail;
        if (body > 0) {
            MemorySegment.copy(src, srcOffset, dst, dstOffset, body);
        }
        long lastWord = dstOffset + body;
        if (tail == TAIL && ((dst.address() + lastWord) & (TAIL - 1)) == 0) {
            long value = src.get(ValueLayout.JAVA_LONG_UNALIGNED, srcOffset + body);
            // Release: the body above is visible before this word (the receiver polls it with acquire).
            LONG.setRelease(dst, lastWord, value);
        } else {
            VarHandle.releaseFence();
            MemorySegment.copy(src, srcOffset + body, dst, lastWord, tail);
        }
    }

    /**
     * Copies {@code length} bytes line by line. For each 64-byte line of the source (aligned on
     * the source's addresses) it loads the line's first word (acquire), copies the part of the
     * line inside the range, compares the copy with the source, and loads the first word again;
     * the line is copied again when the word changed or the comparison found a difference. A
     * writer that follows the line-version protocol changes the first word of a line before and
     * after changing the rest of it, so no accepted line mixes bytes from before and after such
     * a write.
     */
    public static void lineConsistentRead(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, int length) {
        long base = src.address();
        if (((base + srcOffset) & (LINE - 1)) == 0 && (length & (LINE - 1)) == 0) {
            wholeLines(src, srcOffset, dst, dstOffset, length);
            return;
        }
        linesOfAnyAlignment(src, srcOffset, dst, dstOffset, length);
    }

    /** {@link #lineConsistentRead} of any range: partial lines at either end are copied with their line's check. */
    private static void linesOfAnyAlignment(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, int length) {
        long base = src.address();
        long end = srcOffset + length;
        long pos = srcOffset;
        while (pos < end) {
            long lineStart = ((base + pos) & -LINE) - base;
            long lineEnd = Math.min(lineStart + LINE, end);
            long chunk = lineEnd - pos;
            long dstPos = dstOffset + (pos - srcOffset);
            if (lineStart < 0 || lineStart + TAIL > src.byteSize()) {
                // The line's first word lies outside the segment (unaligned segment edge): copy plainly.
                MemorySegment.copy(src, pos, dst, dstPos, chunk);
            } else {
                copyLine(src, lineStart, pos, dst, dstPos, chunk);
            }
            pos = lineEnd;
        }
    }

    /** The common case of {@link #lineConsistentRead}: whole, aligned lines (objects are line aligned). */
    private static void wholeLines(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, int length) {
        for (int done = 0; done < length; done += LINE) {
            long line = srcOffset + done;
            copyLine(src, line, line, dst, dstOffset + done, LINE);
        }
    }

    /**
     * Copies {@code chunk} bytes at {@code pos}, all inside the line whose first word is at
     * {@code lineStart}, consistently: the line's first word is loaded before and after the
     * copy, and the copied bytes are compared with the source once more before the second load.
     * The copy is accepted when the word did not change and the comparison found no difference.
     *
     * <p>The comparison is not needed under x86's ordering; it is there because these machines
     * occasionally break it (docs/decisions.md, "The machines' memory ordering"): in a probe with a
     * writer spinning on the other core, copies bracketed by two equal version loads alone accepted
     * from 1 torn line in 10^4 to 1 in 10^7, compared copies 2 in 1.7 * 10^8.
     */
    private static void copyLine(MemorySegment src, long lineStart, long pos, MemorySegment dst, long dstPos, long chunk) {
        long before;
        long after;
        boolean unchanged;
        do {
            before = (long) LONG.getAcquire(src, lineStart);
            // Explicit fence: the copy's loads stay after the version load (docs/decisions.md).
            VarHandle.acquireFence();
            MemorySegment.copy(src, pos, dst, dstPos, chunk);
            VarHandle.acquireFence();
            unchanged = MemorySegment.mismatch(src, pos, pos + chunk, dst, dstPos, dstPos + chunk) < 0;
            // The copy's and the comparison's loads complete before the first word is loaded again.
            VarHandle.acquireFence();
            after = (long) LONG.getAcquire(src, lineStart);
        } while (before != after || !unchanged);
    }
}
