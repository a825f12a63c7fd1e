package io.farm.hashtable.ycsb;

import io.farm.hashtable.HashTables;
import io.farm.hashtable.ValueMerge;

/**
 * The merge of changed fields into a stored YCSB record ({@link RecordEncoding#merge}), run at
 * the key's shard primary so that a YCSB update is atomic cluster-wide. The argument is the
 * changed fields in {@link RecordEncoding}. Every node that may hold the binding's shards must
 * have it registered ({@link #register}); {@code bin/farm node}, {@code bin/farm cluster} and
 * {@code bin/farm ycsb} register it.
 */
public final class FieldMerge implements ValueMerge {
    /** The id it is registered under. */
    public static final int ID = 1;

    private FieldMerge() {
    }

    /**
     * Registers the field merge under {@link #ID} with {@code tables}.
     *
     * @throws IllegalStateException if another merge holds the id there
     */
    public static void register(HashTables tables) {
        tables.registerMerge(ID, new FieldMerge());
    }

    /**
     * {@code record} with the fields of {@code changes} merged in.
     *
     * @throws IllegalArgumentException if either is not a record of {@link RecordEncoding}
     */
    @Override
    public byte[] merge(byte[] record, byte[] changes) {
        return RecordEncoding.merge(record, RecordEncoding.decode(changes));
    }
}
