package io.farm.bench.txn;

import io.farm.core.addr.GlobalAddress;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The application bytes of one object of the benchmark's store: an 8-byte key and a 40-byte
 * value (FaSST OSDI'16 §6.1), 48 bytes in all. The value holds the bank balance and the count of
 * O(r,w) updates the object received, so the store can be checked after the run.
 *
 * <pre>
 *   0         8         16        24                                48
 *  +---------+---------+---------+-----------------------------------+
 *  | key     | balance | updates | filler (the rest of the value)    |
 *  +---------+---------+---------+-----------------------------------+
 *  |<- key ->|<----------------------- value, 40 bytes --------------->|
 * </pre>
 * Words are little-endian longs.
 */
final class KeyValueLayout {
    /** Application bytes of an object. */
    static final int SIZE = 48;
    /** Balance every account starts with. */
    static final long INITIAL_BALANCE = 1_000;

    /** Offset of the 8-byte key; the 40-byte value follows it. */
    static final int KEY_OFFSET = 0;
    /** Offset of the bank balance. */
    static final int BALANCE_OFFSET = 8;
    /** Offset of the count of O(r,w) updates. */
    static final int UPDATES_OFFSET = 16;

    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private KeyValueLayout() {
    }

    /** A new object's bytes: {@code key}, the initial balance, no updates. */
    static byte[] initial(long key) {
        byte[] bytes = new byte[SIZE];
        LONG.set(bytes, KEY_OFFSET, key);
        LONG.set(bytes, BALANCE_OFFSET, INITIAL_BALANCE);
        return bytes;
    }

    static long key(byte[] object) {
        return (long) LONG.get(object, KEY_OFFSET);
    }

    static long balance(byte[] object) {
        return (long) LONG.get(object, BALANCE_OFFSET);
    }

    static long updates(byte[] object) {
        return (long) LONG.get(object, UPDATES_OFFSET);
    }

    static void balance(byte[] object, long balance) {
        LONG.set(object, BALANCE_OFFSET, balance);
    }

    static void updates(byte[] object, long updates) {
        LONG.set(object, UPDATES_OFFSET, updates);
    }

    /**
     * Checks that the object read for {@code expectedKey} holds that key.
     *
     * @throws IllegalStateException if it holds another: the read returned the wrong object's bytes
     */
    static byte[] requireKey(byte[] object, long expectedKey, long address) {
        long key = key(object);
        if (key != expectedKey) {
            throw new IllegalStateException("the object at " + GlobalAddress.toString(address)
                + " holds key " + key + ", expected key " + expectedKey);
        }
        return object;
    }
}
