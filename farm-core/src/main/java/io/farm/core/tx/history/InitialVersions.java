package io.farm.core.tx.history;

import io.farm.core.addr.GlobalAddress;
import io.farm.core.object.ObjectLayout;
import org.agrona.collections.Long2LongHashMap;

/**
 * The version every object had when a history began: a version nobody in the history wrote but
 * that transactions may read or overwrite. By default it is {@link #DEFAULT} (0, the version of a
 * freshly formatted object) for every address; a loader that wrote objects before recording
 * began registers each object's version then with {@link #register}, which replaces the default
 * for that address.
 *
 * Not thread-safe: register everything before handing the instance to the checker.
 */
public final class InitialVersions {
    /** The initial version of an address nobody registered. */
    public static final long DEFAULT = 0;

    private static final long NONE = -1;
    private final Long2LongHashMap registered = new Long2LongHashMap(NONE);

    /** Initial versions with nothing registered: {@link #DEFAULT} everywhere. */
    public InitialVersions() {
    }

    /**
     * Registers {@code version} as the initial version of the object at {@code address}.
     *
     * @throws IllegalArgumentException if {@code version} is not a 62-bit version, or
     *                                  {@code address} already has a different registered version
     */
    public InitialVersions register(long address, long version) {
        if (version < 0 || version > ObjectLayout.MAX_VERSION) {
            throw new IllegalArgumentException("initial version " + version + " out of range: 0.." + ObjectLayout.MAX_VERSION);
        }
        long previous = registered.get(address);
        if (previous != NONE && previous != version) {
            throw new IllegalArgumentException("initial version of " + GlobalAddress.toString(address)
                + " is already registered as v" + previous + ", cannot register v" + version);
        }
        registered.put(address, version);
        return this;
    }

    /** The initial version of the object at {@code address}. */
    public long initialVersion(long address) {
        long version = registered.get(address);
        return version == NONE ? DEFAULT : version;
    }

    /** Whether {@code version} is the initial version of the object at {@code address}. */
    public boolean isInitial(long address, long version) {
        return initialVersion(address) == version;
    }
}
