package io.farm.hashtable;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Wire layouts of the hashtable's messages: the RPCs that create a table (one shard per call,
 * on the node that will be its primary, then the shard addresses to every node in chunks) and
 * the shipped mutation (to the shard's primary, FaRM's function shipping). Little-endian.
 *
 * <pre>
 *  table descriptor (in CREATE_SHARD and REGISTER requests)
 *  +----------+------------+---------+------------------------------------------------------+
 *  | name len | name UTF-8 | 7 ints: H, maxKey, maxInline, maxValue, shards, buckets, block |
 *  +----------+------------+---------+------------------------------------------------------+
 *    (u8)       (<= 64)
 *
 *  CREATE_SHARD request: descriptor | shard (int)        answer: shard address (long)
 *  REGISTER request:     descriptor | first (int) | count (int) | count shard addresses (long)
 *                        answer: empty
 *
 *  mutation (shipped to the address of the key's home bucket)
 *   0      1      2          4              8
 *  +------+------+----------+--------------+-----------+-------------+
 *  | op   | merge| key len  | value len    | key bytes | value bytes |
 *  +------+------+----------+--------------+-----------+-------------+
 *    op: INSERT, UPDATE, PUT, REMOVE, MERGE; the table is named by the shard address's catalog entry
 *    merge: the merge id (1..255) of a MERGE, whose value bytes are the merge's argument; else 0
 *  mutation answer: 1 byte, 1 if the operation took effect (inserted, updated, put, removed, merged), else 0
 *
 *  shipped lookup: the key bytes      answer: 0 (absent), or 1 followed by the value
 * </pre>
 */
public final class HashTableMessages {
    /** RPC method: create a shard of a table on the receiving node. */
    public static final int CREATE_SHARD = 16;
    /** RPC method: a chunk of a table's shard addresses, for the receiving node's catalog. */
    public static final int REGISTER = 17;
    /** Shipped handler id of mutations. */
    public static final int MUTATE = 0xFA00;
    /**
     * Shipped handler id of lookups run by the shard's primary (the message is the key; the
     * answer is 0, or 1 and the value): the message-passing baseline lock-free lookups are
     * measured against.
     */
    public static final int LOOKUP = 0xFA01;

    /** Mutation: insert if absent. */
    public static final byte INSERT = 1;
    /** Mutation: update if present. */
    public static final byte UPDATE = 2;
    /** Mutation: insert or update. */
    public static final byte PUT = 3;
    /** Mutation: remove if present. */
    public static final byte REMOVE = 4;
    /** Mutation: merge an argument into the value if present ({@link ValueMerge}). */
    public static final byte MERGE = 5;
    /** Smallest merge id. */
    public static final int MIN_MERGE_ID = 1;
    /** Largest merge id (one unsigned byte). */
    public static final int MAX_MERGE_ID = 255;

    /** Bytes before a mutation's key. */
    public static final int MUTATION_HEADER = 8;
    /** Longest table name, in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = 64;

    private HashTableMessages() {
    }

    /** A table's descriptor: its name and configuration. */
    public record Descriptor(String name, HashTableConfig config) {
        /** The descriptor's bytes. */
        public byte[] encode() {
            byte[] name = name().getBytes(StandardCharsets.UTF_8);
            ByteBuffer buffer = ByteBuffer.allocate(1 + name.length + 7 * Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            buffer.put((byte) name.length).put(name);
            buffer.putInt(config.neighbourhood()).putInt(config.maxKeyLength()).putInt(config.maxInlineValue())
                .putInt(config.maxValueLength()).putInt(config.shards()).putInt(config.bucketsPerShard())
                .putInt(config.overflowSlots());
            return buffer.array();
        }

        /**
         * Reads a descriptor from {@code buffer} (little-endian), advancing it.
         *
         * @throws IllegalArgumentException if it is malformed
         */
        public static Descriptor decode(ByteBuffer buffer) {
            if (buffer.remaining() < 1) {
                throw new IllegalArgumentException("malformed table descriptor: empty");
            }
            int nameLength = buffer.get() & 0xFF;
            if (nameLength > MAX_NAME_BYTES || buffer.remaining() < nameLength + 7 * Integer.BYTES) {
                throw new IllegalArgumentException("malformed table descriptor: a name of " + nameLength
                    + " bytes (at most " + MAX_NAME_BYTES + ") and 28 bytes of configuration do not fit "
                    + buffer.remaining() + " bytes");
            }
            byte[] name = new byte[nameLength];
            buffer.get(name);
            HashTableConfig config = new HashTableConfig(buffer.getInt(), buffer.getInt(), buffer.getInt(),
                buffer.getInt(), buffer.getInt(), buffer.getInt(), buffer.getInt());
            return new Descriptor(new String(name, StandardCharsets.UTF_8), config);
        }
    }

    /**
     * Checks a merge id.
     *
     * @throws IllegalArgumentException if it is not {@value #MIN_MERGE_ID}..{@value #MAX_MERGE_ID}
     */
    public static void checkMergeId(int id) {
        if (id < MIN_MERGE_ID || id > MAX_MERGE_ID) {
            throw new IllegalArgumentException("merge id " + id + " is not accepted: ids are " + MIN_MERGE_ID + ".."
                + MAX_MERGE_ID);
        }
    }

    /** A mutation's bytes; {@code mergeId} is 0 except for {@link #MERGE}. */
    public static byte[] mutation(byte op, int mergeId, byte[] key, byte[] value) {
        int valueLength = value == null ? 0 : value.length;
        ByteBuffer buffer = ByteBuffer.allocate(MUTATION_HEADER + key.length + valueLength).order(ByteOrder.LITTLE_ENDIAN);
        buffer.put(op).put((byte) mergeId).putShort((short) key.length).putInt(valueLength).put(key);
        if (value != null) {
            buffer.put(value);
        }
        return buffer.array();
    }

    /** A decoded mutation; {@code mergeId} is 0 except for {@link #MERGE}. */
    public record Mutation(byte op, int mergeId, byte[] key, byte[] value) {
        /**
         * Decodes the mutation of {@code length} bytes at {@code buffer}'s position.
         *
         * @throws IllegalArgumentException if it is malformed
         */
        public static Mutation decode(ByteBuffer buffer) {
            buffer.order(ByteOrder.LITTLE_ENDIAN);
            if (buffer.remaining() < MUTATION_HEADER) {
                throw new IllegalArgumentException("malformed hashtable mutation: " + buffer.remaining()
                    + " bytes, shorter than its " + MUTATION_HEADER + "-byte header");
            }
            byte op = buffer.get();
            int mergeId = buffer.get() & 0xFF;
            int keyLength = buffer.getShort() & 0xFFFF;
            int valueLength = buffer.getInt();
            if (op < INSERT || op > MERGE || valueLength < 0 || buffer.remaining() != keyLength + valueLength) {
                throw new IllegalArgumentException("malformed hashtable mutation: op " + op + " (accepted 1..5), a "
                    + keyLength + "-byte key and a " + valueLength + "-byte value in " + buffer.remaining() + " bytes");
            }
            if ((op == MERGE) != (mergeId != 0)) {
                throw new IllegalArgumentException("malformed hashtable mutation: op " + op + " with merge id " + mergeId
                    + " (a MERGE names its merge, 1.." + MAX_MERGE_ID + "; other operations carry 0)");
            }
            byte[] key = new byte[keyLength];
            buffer.get(key);
            byte[] value = new byte[valueLength];
            buffer.get(value);
            return new Mutation(op, mergeId, key, op == REMOVE ? null : value);
        }
    }
}
