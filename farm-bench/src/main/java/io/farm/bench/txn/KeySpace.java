package io.farm.bench.txn;

import io.farm.core.addr.GlobalAddress;
import io.farm.core.placement.PlacementRing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;

/**
 * The preloaded objects of the store: {@code keysPerNode} objects whose primary is node
 * {@code n}, for every node; key {@code n * keysPerNode + i} is object {@code i} of node
 * {@code n}. Immutable once built.
 */
final class KeySpace {
    private final long[][] addresses;
    private final int keysPerNode;
    private final PlacementRing placement;

    KeySpace(long[][] addresses, PlacementRing placement) {
        this.addresses = addresses;
        this.keysPerNode = addresses[0].length;
        this.placement = placement;
        for (int node = 0; node < addresses.length; node++) {
            if (addresses[node].length != keysPerNode) {
                throw new IllegalArgumentException("node " + node + " holds " + addresses[node].length + " keys, node 0 "
                    + keysPerNode + ": every node holds the same number");
            }
            for (long address : addresses[node]) {
                int primary = placement.primary(GlobalAddress.regionId(address));
                if (primary != node) {
                    throw new IllegalStateException("key object " + GlobalAddress.toString(address) + " of node " + node
                        + " has primary " + primary);
                }
            }
        }
    }

    /** Nodes holding keys. */
    int nodes() {
        return addresses.length;
    }

    /** Keys whose primary is each node. */
    int keysPerNode() {
        return keysPerNode;
    }

    /** All keys. */
    long keys() {
        return (long) keysPerNode * addresses.length;
    }

    /** The key of object {@code index} of node {@code node}. */
    long key(int node, int index) {
        return (long) node * keysPerNode + index;
    }

    /** The address of object {@code index} of node {@code node}. */
    long address(int node, int index) {
        return addresses[node][index];
    }

    /** The backups of the region of {@code address}: its replicas after the primary. */
    int[] backupsOf(long address) {
        int[] replicas = placement.replicas(GlobalAddress.regionId(address)).toArray();
        return Arrays.copyOfRange(replicas, 1, replicas.length);
    }

    /** Writes one node's addresses to {@code file} (a count, then the addresses, little-endian). */
    static void store(long[] addresses, Path file) {
        ByteBuffer bytes = ByteBuffer.allocate(Long.BYTES * (addresses.length + 1)).order(ByteOrder.LITTLE_ENDIAN);
        bytes.putLong(addresses.length);
        for (long address : addresses) {
            bytes.putLong(address);
        }
        try {
            Path partial = file.resolveSibling(file.getFileName() + ".partial");
            Files.write(partial, bytes.array());
            Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the key addresses to " + file, e);
        }
    }

    /** Reads addresses {@link #store} wrote. */
    static long[] load(Path file) {
        try {
            ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
            long count = bytes.getLong();
            if (count != bytes.remaining() / Long.BYTES || bytes.remaining() % Long.BYTES != 0) {
                throw new IllegalStateException(file + " announces " + count + " addresses but holds "
                    + bytes.remaining() + " bytes after the count");
            }
            long[] addresses = new long[(int) count];
            for (int i = 0; i < addresses.length; i++) {
                addresses[i] = bytes.getLong();
            }
            return addresses;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the key addresses from " + file, e);
        }
    }

    /** The file where node {@code node} stores the addresses of its keys. */
    static Path file(Path dataDir, int node) {
        return dataDir.resolve("txn-keys-node-" + node + ".bin");
    }
}
