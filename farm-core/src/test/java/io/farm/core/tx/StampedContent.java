package io.farm.core.tx;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Self-checking object contents for tests: a stamp in the first 8 bytes, every further byte
 * derived from the stamp and its position, so a copy that mixes two contents (torn) is told
 * from an intact one, and an intact copy tells which object and which write it holds.
 *
 * <pre>
 *   0                 4                  8                                   size
 *  +-----------------+------------------+-------------------------------------+
 *  | sequence (int)  | serial (int)     | byte i = high bits of mix(stamp) ^ i |
 *  +-----------------+------------------+-------------------------------------+
 *   stamp = serial << 32 | sequence, native byte order
 *   serial: which object (allocation) it is; sequence: which of its writes
 * </pre>
 */
final class StampedContent {
    /** Bytes of the stamp; contents are at least this long. */
    static final int STAMP_BYTES = Long.BYTES;

    private StampedContent() {
    }

    /** The stamp of the {@code sequence}-th write of the object numbered {@code serial}. */
    static long stamp(int serial, int sequence) {
        return (long) serial << 32 | sequence & 0xFFFF_FFFFL;
    }

    static int serial(long stamp) {
        return (int) (stamp >>> 32);
    }

    static int sequence(long stamp) {
        return (int) stamp;
    }

    /**
     * The {@code size} bytes of the content stamped {@code stamp}.
     *
     * @throws IllegalArgumentException if {@code size} is smaller than the stamp
     */
    static byte[] of(long stamp, int size) {
        if (size < STAMP_BYTES) {
            throw new IllegalArgumentException("stamped content of " + size + " bytes: at least " + STAMP_BYTES + " needed");
        }
        byte[] bytes = new byte[size];
        ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder()).putLong(0, stamp);
        long mixed = mix(stamp);
        for (int i = STAMP_BYTES; i < size; i++) {
            bytes[i] = derived(mixed, i);
        }
        return bytes;
    }

    /** The stamp of {@code bytes} (its first 8 bytes). */
    static long stampOf(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder()).getLong(0);
    }

    /** Whether every byte of {@code bytes} after the stamp is the one its stamp derives. */
    static boolean intact(byte[] bytes) {
        long mixed = mix(stampOf(bytes));
        for (int i = STAMP_BYTES; i < bytes.length; i++) {
            if (bytes[i] != derived(mixed, i)) {
                return false;
            }
        }
        return true;
    }

    private static byte derived(long mixed, int position) {
        return (byte) (mixed >>> (position & 7) * 8 ^ position);
    }

    /** A 64-bit finalizer (splitmix64's): every stamp bit changes about half of the result's bits. */
    private static long mix(long stamp) {
        long z = stamp + 0x9E3779B97F4A7C15L;
        z = (z ^ z >>> 30) * 0xBF58476D1CE4E5B9L;
        z = (z ^ z >>> 27) * 0x94D049BB133111EBL;
        return z ^ z >>> 31;
    }
}
