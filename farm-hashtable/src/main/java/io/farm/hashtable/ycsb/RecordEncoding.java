package io.farm.hashtable.ycsb;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The layout of a YCSB record in one hashtable value: the record's fields, each a name and a
 * value, stored under the key's UTF-8 bytes. Compact: every count and length is an unsigned
 * varint, so a field of YCSB's default shape (a 6-byte name, a 100-byte value) costs 2 bytes of
 * framing.
 *
 * <pre>
 *  record
 *  +-------------+---------+---------+-----+---------------+
 *  | field count | field 0 | field 1 | ... | field count-1 |
 *  |  (varint)   |         |         |     |               |
 *  +-------------+---------+---------+-----+---------------+
 *
 *  field
 *  +-------------+---------------+--------------+-----------------+
 *  | name length | name          | value length | value           |
 *  |  (varint)   | (UTF-8 bytes) |  (varint)    | (bytes)         |
 *  +-------------+---------------+--------------+-----------------+
 *
 *  varint: unsigned LEB128, 7 bits a byte, lowest group first, bit 7 set on every byte but the
 *          last; at most 5 bytes (an int of 0 .. 2^31-1)
 * </pre>
 *
 * Field names are unique within a record and kept in the order they were first written; the
 * empty record (count 0) is one byte.
 */
public final class RecordEncoding {
    private static final int MAX_VARINT_BYTES = 5;

    private RecordEncoding() {
    }

    /**
     * The record of {@code fields}, in the map's iteration order.
     *
     * @throws IllegalArgumentException if a name or value is null
     */
    public static byte[] encode(Map<String, byte[]> fields) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(encodedLengthEstimate(fields));
        writeVarint(out, fields.size());
        for (Map.Entry<String, byte[]> field : fields.entrySet()) {
            if (field.getKey() == null || field.getValue() == null) {
                throw new IllegalArgumentException("record field " + field.getKey() + " has a null "
                    + (field.getKey() == null ? "name" : "value") + ": names and values are non-null");
            }
            byte[] name = field.getKey().getBytes(StandardCharsets.UTF_8);
            writeVarint(out, name.length);
            out.write(name, 0, name.length);
            writeVarint(out, field.getValue().length);
            out.write(field.getValue(), 0, field.getValue().length);
        }
        return out.toByteArray();
    }

    /**
     * Every field of {@code record}, in stored order.
     *
     * @throws IllegalArgumentException if the bytes are not a record (truncated, trailing bytes,
     *                                  an overlong varint, a name that is not UTF-8, a repeated name)
     */
    public static Map<String, byte[]> decode(byte[] record) {
        return decode(record, null);
    }

    /**
     * The fields of {@code record} named in {@code selected} (all of them if null), in stored
     * order; names the record lacks are left out. The whole record is checked either way.
     *
     * @throws IllegalArgumentException as {@link #decode(byte[])}
     */
    public static Map<String, byte[]> decode(byte[] record, Set<String> selected) {
        ByteBuffer in = ByteBuffer.wrap(record);
        int count = readVarint(in, "field count");
        Map<String, byte[]> fields = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < count; i++) {
            String name = readName(in, i);
            if (!seen.add(name)) {
                throw new IllegalArgumentException("record field " + i + " repeats the name " + name
                    + ": field names are unique within a record");
            }
            byte[] value = readBytes(in, readVarint(in, "value length of field " + name), "value of field " + name);
            if (selected == null || selected.contains(name)) {
                fields.put(name, value);
            }
        }
        if (in.hasRemaining()) {
            throw new IllegalArgumentException("record has " + in.remaining() + " bytes after its " + count
                + " fields: a record ends with its last field");
        }
        return fields;
    }

    /**
     * {@code record} with {@code changes} merged in: a changed field keeps its place with the new
     * value, a new field is appended, the others are kept.
     *
     * @throws IllegalArgumentException as {@link #decode(byte[])} and {@link #encode}
     */
    public static byte[] merge(byte[] record, Map<String, byte[]> changes) {
        Map<String, byte[]> fields = decode(record);
        fields.putAll(changes);
        return encode(fields);
    }

    private static String readName(ByteBuffer in, int index) {
        byte[] bytes = readBytes(in, readVarint(in, "name length of field " + index), "name of field " + index);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("record field " + index + " has a name that is not UTF-8: " + e.getMessage());
        }
    }

    private static byte[] readBytes(ByteBuffer in, int length, String what) {
        if (length > in.remaining()) {
            throw new IllegalArgumentException("record truncated: the " + what + " has " + length + " bytes, "
                + in.remaining() + " remain");
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return bytes;
    }

    private static void writeVarint(ByteArrayOutputStream out, int value) {
        int rest = value;
        while ((rest & ~0x7F) != 0) {
            out.write((rest & 0x7F) | 0x80);
            rest >>>= 7;
        }
        out.write(rest);
    }

    private static int readVarint(ByteBuffer in, String what) {
        long value = 0;
        for (int i = 0; i < MAX_VARINT_BYTES; i++) {
            if (!in.hasRemaining()) {
                throw new IllegalArgumentException("record truncated in the " + what);
            }
            int b = in.get() & 0xFF;
            value |= (long) (b & 0x7F) << (7 * i);
            if ((b & 0x80) == 0) {
                if (value > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException("record " + what + " " + value + " exceeds " + Integer.MAX_VALUE);
                }
                return (int) value;
            }
        }
        throw new IllegalArgumentException("record " + what + " is a varint longer than " + MAX_VARINT_BYTES + " bytes");
    }

    private static int encodedLengthEstimate(Map<String, byte[]> fields) {
        int length = MAX_VARINT_BYTES;
        for (Map.Entry<String, byte[]> field : fields.entrySet()) {
            length += 2 * MAX_VARINT_BYTES + (field.getKey() == null ? 0 : field.getKey().length())
                + (field.getValue() == null ? 0 : field.getValue().length);
        }
        return length;
    }
}
