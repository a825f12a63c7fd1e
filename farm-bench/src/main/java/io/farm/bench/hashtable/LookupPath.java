package io.farm.bench.hashtable;

import io.farm.core.cluster.NodeWorker;
import io.farm.core.object.LockFreeReadTimeoutException;
import io.farm.core.rpc.RpcException;
import io.farm.hashtable.HashTable;

import java.util.concurrent.CompletionStage;

/** The two ways a farm lookup can go: lock-free one-sided reads, or a message to the shard's primary (the RPC baseline). */
enum LookupPath {
    /** {@link HashTable#get}: one fabric read of the key's two buckets, more only for overflow chains. */
    LOCK_FREE("lock-free") {
        @Override
        CompletionStage<byte[]> lookup(HashTable table, NodeWorker worker, byte[] key) {
            return table.get(worker, key);
        }

        @Override
        boolean passing(Throwable failure) {
            return failure instanceof LockFreeReadTimeoutException;
        }
    },
    /** {@link HashTable#getByMessage}: the key goes to the shard's primary, which looks it up locally and answers. */
    MESSAGE("rpc") {
        @Override
        CompletionStage<byte[]> lookup(HashTable table, NodeWorker worker, byte[] key) {
            return table.getByMessage(worker, key);
        }

        @Override
        boolean passing(Throwable failure) {
            // The primary's own lookup may time out as above; it comes back as a failed RPC.
            return failure instanceof RpcException || failure instanceof LockFreeReadTimeoutException;
        }
    };

    private final String label;

    LookupPath(String label) {
        this.label = label;
    }

    /** The name used in progress lines. */
    String label() {
        return label;
    }

    /** Looks {@code key} up in {@code table} on {@code worker}. */
    abstract CompletionStage<byte[]> lookup(HashTable table, NodeWorker worker, byte[] key);

    /** Whether a lookup that failed with {@code failure} may be reissued ({@link Retries}). */
    abstract boolean passing(Throwable failure);
}
