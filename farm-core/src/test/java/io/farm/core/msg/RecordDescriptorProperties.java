package io.farm.core.msg;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

class RecordDescriptorProperties {
    @Property
    void headerFieldsRoundTripAndTheHeaderIsNeverZero(@ForAll @IntRange(min = 0, max = 1 << 28) int payload,
                                                      @ForAll @IntRange(min = 0, max = RecordDescriptor.MAX_TYPE) int type,
                                                      @ForAll @IntRange(min = 0, max = 0xFFFF) int flags) {
        int length = RecordDescriptor.recordLength(payload);
        long header = RecordDescriptor.header(length, type, flags);
        assertNotEquals(0L, header);
        assertEquals(length, RecordDescriptor.length(header));
        assertEquals(payload, RecordDescriptor.payloadLength(header));
        assertEquals(type, RecordDescriptor.type(header));
        assertEquals(flags, RecordDescriptor.flags(header));
        assertNotEquals(0L, RecordDescriptor.trailer(length));
        assertEquals(0, RecordDescriptor.span(length) % RecordDescriptor.ALIGNMENT);
        assertEquals(true, RecordDescriptor.span(length) - length < RecordDescriptor.ALIGNMENT);
    }

    @Property
    void theLargestPayloadSpansAQuarterOfTheRing(@ForAll @IntRange(min = 12, max = 30) int capacityBits) {
        int capacity = 1 << capacityBits;
        int max = RecordDescriptor.maxPayloadLength(capacity);
        assertEquals(capacity / 4, RecordDescriptor.span(RecordDescriptor.recordLength(max)));
        assertEquals(capacity / 4 + RecordDescriptor.ALIGNMENT,
            RecordDescriptor.span(RecordDescriptor.recordLength(max + 1)));
    }
}
