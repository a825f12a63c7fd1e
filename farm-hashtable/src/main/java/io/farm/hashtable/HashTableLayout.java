package io.farm.hashtable;

import io.farm.alloc.SizeClasses;
import io.farm.core.object.FatPointer;
import io.farm.core.object.ObjectLayout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Layout of a hashtable's objects, in their application bytes (the object layout's version words
 * are not shown; FaRM NSDI'14 §3.6, DESIGN §10), computed from a {@link HashTableConfig}: slots
 * are as narrow as the configured key and value lengths allow, since space utilization is one of
 * the table's figures.
 *
 * <pre>
 *  bucket (one object; a shard is an array of them)
 *   0        2        4               14
 *  +--------+--------+---------------+--------+--------+-----+----------+
 *  | fwd jv | bwd jv | overflow link | slot 0 | slot 1 | ... | slot H/2-1|
 *  +--------+--------+---------------+--------+--------+-----+----------+
 *   fwd jv: joint version with the next bucket; bwd jv: with the previous one (16 bits each);
 *   a reader of buckets b and b+1 accepts them together iff fwd jv(b) == bwd jv(b+1)
 *   overflow link: the first block of the bucket's overflow chain ({@link ChainLink}, 10 bytes),
 *   all zero if none
 *
 *  overflow block (one object, on the shard's primary)
 *   0                 10
 *  +-----------------+--------+-----+-----------------+
 *  | next block link | slot 0 | ... | slot S-1        |   S = overflowSlots
 *  +-----------------+--------+-----+-----------------+
 *
 *  slot
 *  +------+-----------------------+-------------------------------------------+
 *  | meta | key (maxKeyLength)    | value area                                |
 *  +------+-----------------------+-------------------------------------------+
 *   meta (metaBytes, little-endian bits): bit 0 used, bit 1 value out of line,
 *        then keyBits bits of key length, then valueBits bits of inline value length
 *   value area: max(maxInlineValue, 16 if values may be out of line) bytes: the value inline,
 *        or a fat pointer to an out-of-line value object
 *
 *  out-of-line value (one object)
 *  +----------------+------------------+
 *  | length (int32) | value bytes      |
 *  +----------------+------------------+
 * </pre>
 * Multi-byte fields are little-endian.
 */
public final class HashTableLayout {
    /** Offset of the forward joint version in a bucket. */
    public static final int FORWARD_JOINT_OFFSET = 0;
    /** Offset of the backward joint version in a bucket. */
    public static final int BACKWARD_JOINT_OFFSET = 2;
    /** Offset of the overflow link in a bucket. */
    public static final int OVERFLOW_OFFSET = 4;
    /** Bytes before a bucket's first slot. */
    public static final int BUCKET_HEADER = OVERFLOW_OFFSET + ChainLink.BYTES;
    /** Offset of the next-block link in an overflow block. */
    public static final int NEXT_OFFSET = 0;
    /** Bytes before an overflow block's first slot. */
    public static final int BLOCK_HEADER = ChainLink.BYTES;
    /** Offset of the value bytes in an out-of-line value object. */
    public static final int VALUE_OBJECT_HEADER = Integer.BYTES;

    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long USED = 1;
    private static final long OUT_OF_LINE = 2;

    private final HashTableConfig config;
    private final int keyBits;
    private final int valueBits;
    private final int metaBytes;
    private final int valueArea;
    private final int slotSize;
    private final int bucketSize;
    private final int blockSize;

    /** The layout of tables of {@code config}. */
    public HashTableLayout(HashTableConfig config) {
        this.config = config;
        this.keyBits = bits(config.maxKeyLength());
        this.valueBits = bits(config.maxInlineValue());
        this.metaBytes = (2 + keyBits + valueBits + 7) / 8;
        boolean outOfLine = config.maxValueLength() > config.maxInlineValue();
        this.valueArea = Math.max(config.maxInlineValue(), outOfLine ? FatPointer.BYTES : 0);
        this.slotSize = metaBytes + config.maxKeyLength() + valueArea;
        this.bucketSize = BUCKET_HEADER + config.slotsPerBucket() * slotSize;
        this.blockSize = BLOCK_HEADER + config.overflowSlots() * slotSize;
        long shardBytes = (long) ObjectLayout.storedSize(bucketSize) * (config.bucketsPerShard() + 1L);
        if (bucketSize > ObjectLayout.MAX_APPLICATION_SIZE || blockSize > ObjectLayout.MAX_APPLICATION_SIZE
            || shardBytes > SizeClasses.MAX_SIZE) {
            throw new IllegalArgumentException("a shard of " + config.bucketsPerShard() + " buckets of " + bucketSize
                + " bytes (" + ObjectLayout.storedSize(Math.min(bucketSize, ObjectLayout.MAX_APPLICATION_SIZE))
                + " stored, plus one neighbour bucket) takes " + shardBytes + " bytes; a shard is one allocation of at most "
                + SizeClasses.MAX_SIZE + ": use more shards or fewer buckets per shard");
        }
    }

    /**
     * {@code config} with as many home buckets per shard as its shard's allocation holds: a
     * shard is one allocation of a size class, and the buckets that fit the rest of it would
     * otherwise be memory the table occupies without using (a table sized well).
     *
     * @throws IllegalArgumentException if a shard of {@code config} does not fit one allocation
     */
    public static HashTableConfig fillShards(HashTableConfig config) {
        HashTableLayout layout = new HashTableLayout(config);
        int stride = ObjectLayout.storedSize(layout.bucketSize());
        int shardBytes = stride * (config.bucketsPerShard() + 1);
        int allocation = SizeClasses.sizeOf(SizeClasses.classOf(shardBytes));
        int buckets = allocation / stride - 1;
        return new HashTableConfig(config.neighbourhood(), config.maxKeyLength(), config.maxInlineValue(),
            config.maxValueLength(), config.shards(), buckets, config.overflowSlots());
    }

    private static int bits(int max) {
        return 32 - Integer.numberOfLeadingZeros(max);
    }

    /** The table's configuration. */
    public HashTableConfig config() {
        return config;
    }

    /** Application bytes of a bucket. */
    public int bucketSize() {
        return bucketSize;
    }

    /** Application bytes of an overflow block. */
    public int blockSize() {
        return blockSize;
    }

    /** Bytes of a slot. */
    public int slotSize() {
        return slotSize;
    }

    /** Offset of slot {@code slot} in a bucket. */
    public int bucketSlot(int slot) {
        return BUCKET_HEADER + slot * slotSize;
    }

    /** Offset of slot {@code slot} in an overflow block. */
    public int blockSlot(int slot) {
        return BLOCK_HEADER + slot * slotSize;
    }

    /** Whether a value of {@code length} bytes is stored out of line. */
    public boolean outOfLine(int length) {
        return length > config.maxInlineValue();
    }

    /** Application bytes of the out-of-line object of a {@code length}-byte value. */
    public static int valueObjectSize(int length) {
        return VALUE_OBJECT_HEADER + length;
    }

    // ---- slots, in a byte[] holding an object's application bytes ----

    private long meta(byte[] object, int slot) {
        long meta = 0;
        for (int i = metaBytes - 1; i >= 0; i--) {
            meta = meta << 8 | (object[slot + i] & 0xFF);
        }
        return meta;
    }

    private void putMeta(byte[] object, int slot, long meta) {
        for (int i = 0; i < metaBytes; i++) {
            object[slot + i] = (byte) (meta >>> 8 * i);
        }
    }

    /** Whether the slot at {@code slot} holds a pair. */
    public boolean used(byte[] object, int slot) {
        return (meta(object, slot) & USED) != 0;
    }

    /** Whether the slot's value is out of line (a fat pointer in its value area). */
    public boolean valueOutOfLine(byte[] object, int slot) {
        return (meta(object, slot) & OUT_OF_LINE) != 0;
    }

    /** The key length of the slot. */
    public int keyLength(byte[] object, int slot) {
        return (int) (meta(object, slot) >>> 2 & (1L << keyBits) - 1);
    }

    /** The inline value length of the slot. */
    public int inlineValueLength(byte[] object, int slot) {
        return (int) (meta(object, slot) >>> 2 + keyBits & (1L << valueBits) - 1);
    }

    /** Whether the slot holds {@code key}. */
    public boolean holds(byte[] object, int slot, byte[] key) {
        if (!used(object, slot) || keyLength(object, slot) != key.length) {
            return false;
        }
        int from = slot + metaBytes;
        return Arrays.equals(object, from, from + key.length, key, 0, key.length);
    }

    /** The key of the slot. */
    public byte[] key(byte[] object, int slot) {
        int from = slot + metaBytes;
        return Arrays.copyOfRange(object, from, from + keyLength(object, slot));
    }

    /** The inline value of the slot. */
    public byte[] inlineValue(byte[] object, int slot) {
        int from = slot + metaBytes + config.maxKeyLength();
        return Arrays.copyOfRange(object, from, from + inlineValueLength(object, slot));
    }

    /** The fat pointer to the slot's out-of-line value. */
    public FatPointer valuePointer(byte[] object, int slot) {
        return FatPointer.read(MemorySegment.ofArray(object), slot + metaBytes + config.maxKeyLength());
    }

    /** Stores {@code key} with an inline {@code value} in the slot. */
    public void putInline(byte[] object, int slot, byte[] key, byte[] value) {
        clear(object, slot);
        putMeta(object, slot, USED | (long) key.length << 2 | (long) value.length << 2 + keyBits);
        System.arraycopy(key, 0, object, slot + metaBytes, key.length);
        System.arraycopy(value, 0, object, slot + metaBytes + config.maxKeyLength(), value.length);
    }

    /** Stores {@code key} with a fat pointer to its out-of-line value in the slot. */
    public void putOutOfLine(byte[] object, int slot, byte[] key, FatPointer value) {
        clear(object, slot);
        putMeta(object, slot, USED | OUT_OF_LINE | (long) key.length << 2);
        System.arraycopy(key, 0, object, slot + metaBytes, key.length);
        value.write(MemorySegment.ofArray(object), slot + metaBytes + config.maxKeyLength());
    }

    /** Copies slot {@code from} of {@code source} into slot {@code to} of {@code target}. */
    public void copySlot(byte[] source, int from, byte[] target, int to) {
        System.arraycopy(source, from, target, to, slotSize);
    }

    /** Empties the slot. */
    public void clear(byte[] object, int slot) {
        Arrays.fill(object, slot, slot + slotSize, (byte) 0);
    }

    // ---- bucket and block headers ----

    /** The bucket's forward joint version. */
    public static int forwardJoint(byte[] bucket) {
        return MemorySegment.ofArray(bucket).get(SHORT, FORWARD_JOINT_OFFSET) & 0xFFFF;
    }

    /** The bucket's backward joint version. */
    public static int backwardJoint(byte[] bucket) {
        return MemorySegment.ofArray(bucket).get(SHORT, BACKWARD_JOINT_OFFSET) & 0xFFFF;
    }

    /** Increments the joint version between {@code bucket} and the {@code next} one (both written by the caller). */
    public static void bumpJoint(byte[] bucket, byte[] next) {
        short value = (short) (forwardJoint(bucket) + 1);
        MemorySegment.ofArray(bucket).set(SHORT, FORWARD_JOINT_OFFSET, value);
        MemorySegment.ofArray(next).set(SHORT, BACKWARD_JOINT_OFFSET, value);
    }

    /** The bucket's overflow chain head, or null. */
    public static ChainLink overflow(byte[] bucket) {
        return ChainLink.read(bucket, OVERFLOW_OFFSET);
    }

    /** Sets (or, with null, clears) the bucket's overflow chain head. */
    public static void setOverflow(byte[] bucket, ChainLink head) {
        setLink(bucket, OVERFLOW_OFFSET, head);
    }

    /** The block's next block, or null. */
    public static ChainLink next(byte[] block) {
        return ChainLink.read(block, NEXT_OFFSET);
    }

    /** Sets (or, with null, clears) the block's next block. */
    public static void setNext(byte[] block, ChainLink next) {
        setLink(block, NEXT_OFFSET, next);
    }

    private static void setLink(byte[] object, int offset, ChainLink link) {
        if (link == null) {
            ChainLink.clear(object, offset);
        } else {
            link.write(object, offset);
        }
    }

    /** An out-of-line value object's bytes for {@code value}. */
    public static byte[] valueObject(byte[] value) {
        byte[] object = new byte[valueObjectSize(value.length)];
        MemorySegment.ofArray(object).set(INT, 0, value.length);
        System.arraycopy(value, 0, object, VALUE_OBJECT_HEADER, value.length);
        return object;
    }

    /** The value held by an out-of-line value object's bytes. */
    public static byte[] valueOf(byte[] valueObject) {
        int length = MemorySegment.ofArray(valueObject).get(INT, 0);
        if (length < 0 || length > valueObject.length - VALUE_OBJECT_HEADER) {
            throw new IllegalStateException("out-of-line value object of " + valueObject.length
                + " bytes claims a value of " + length + " bytes");
        }
        return Arrays.copyOfRange(valueObject, VALUE_OBJECT_HEADER, VALUE_OBJECT_HEADER + length);
    }
}
