package io.farm.hashtable.ycsb;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The record layout of the YCSB binding: round trips, selection, merges and malformed bytes. */
class RecordEncodingProperties {
    @Provide
    Arbitrary<Map<String, byte[]>> records() {
        Arbitrary<String> names = Arbitraries.strings().ofMinLength(0).ofMaxLength(40)
            .filter(s -> s.codePoints().noneMatch(c -> c >= 0xD800 && c <= 0xDFFF));
        Arbitrary<byte[]> values = Arbitraries.bytes().array(byte[].class).ofMinSize(0).ofMaxSize(300);
        return Arbitraries.maps(names, values).ofMaxSize(20).map(LinkedHashMap::new);
    }

    @Property(tries = 300)
    void decodingAnEncodedRecordGivesItsFieldsInOrder(@ForAll("records") Map<String, byte[]> fields) {
        Map<String, byte[]> decoded = RecordEncoding.decode(RecordEncoding.encode(fields));
        assertEquals(List.copyOf(fields.keySet()), List.copyOf(decoded.keySet()));
        fields.forEach((name, value) -> assertArrayEquals(value, decoded.get(name), name));
    }

    @Property(tries = 200)
    void mergingReplacesChangedFieldsInPlaceAndAppendsNewOnes(@ForAll("records") Map<String, byte[]> stored,
                                                              @ForAll("records") Map<String, byte[]> changes) {
        Map<String, byte[]> merged = RecordEncoding.decode(RecordEncoding.merge(RecordEncoding.encode(stored), changes));
        Map<String, byte[]> expected = new LinkedHashMap<>(stored);
        expected.putAll(changes);
        assertEquals(List.copyOf(expected.keySet()), List.copyOf(merged.keySet()));
        expected.forEach((name, value) -> assertArrayEquals(value, merged.get(name), name));
    }

    @Property(tries = 40)
    void everyProperPrefixOfARecordIsRefused(@ForAll("records") Map<String, byte[]> fields) {
        byte[] record = RecordEncoding.encode(fields);
        for (int length = 0; length < record.length; length++) {
            byte[] prefix = Arrays.copyOf(record, length);
            assertThrows(IllegalArgumentException.class, () -> RecordEncoding.decode(prefix), "prefix of " + length);
        }
    }

    @Test
    void aYcsbDefaultFieldCostsTwoBytesOfFraming() {
        Map<String, byte[]> fields = new LinkedHashMap<>();
        for (int i = 0; i < 10; i++) {
            fields.put("field" + i, new byte[100]);
        }
        assertEquals(1 + 10 * (1 + 6 + 1 + 100), RecordEncoding.encode(fields).length);
    }

    @Test
    void lengthsAreUnsignedLeb128Varints() {
        byte[] record = RecordEncoding.encode(Map.of("f", new byte[300]));
        // count 1, name length 1, 'f', value length 300 = 0b10_0101100: 0xAC 0x02
        assertArrayEquals(new byte[] {1, 1, 'f', (byte) 0xAC, 0x02}, Arrays.copyOf(record, 5));
        assertEquals(5 + 300, record.length);
    }

    @Test
    void selectedFieldsAreTheOnlyOnesDecodedAndMissingNamesAreLeftOut() {
        Map<String, byte[]> fields = new LinkedHashMap<>();
        fields.put("a", bytes("1"));
        fields.put("b", bytes("2"));
        fields.put("c", bytes("3"));
        Map<String, byte[]> selected = RecordEncoding.decode(RecordEncoding.encode(fields), Set.of("c", "a", "zz"));
        assertEquals(List.of("a", "c"), List.copyOf(selected.keySet()));
        assertArrayEquals(bytes("3"), selected.get("c"));
    }

    @Test
    void malformedRecordsAreRefusedNamingTheProblem() {
        assertTrue(refusal(new byte[] {1, 1, 'f', 0, 9}).contains("after its 1 fields"));
        assertTrue(refusal(new byte[] {2, 1, 'f', 0, 1, 'f', 0}).contains("repeats the name f"));
        assertTrue(refusal(new byte[] {1, 1, (byte) 0xFF, 0}).contains("not UTF-8"));
        assertTrue(refusal(new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0})
            .contains("longer than 5 bytes"));
        assertTrue(refusal(new byte[] {1, 1, 'f', 5, 'x'}).contains("truncated"));
        assertTrue(refusal(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F}).contains("exceeds"));
    }

    private static String refusal(byte[] record) {
        return assertThrows(IllegalArgumentException.class, () -> RecordEncoding.decode(record)).getMessage();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
