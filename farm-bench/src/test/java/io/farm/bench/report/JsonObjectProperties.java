package io.farm.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JsonObjectProperties {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Property
    void everyStringReadsBackUnchanged(@ForAll String key, @ForAll String value) throws Exception {
        JsonNode json = JSON.readTree(new JsonObject().put(key, value).toString());

        assertEquals(value, json.path(key).asText());
    }

    @Property
    void everyFiniteNumberReadsBackWithinSixSignificantDigits(@ForAll double value) throws Exception {
        JsonNode json = JSON.readTree(new JsonObject().put("x", value).toString()).path("x");

        if (Double.isFinite(value)) {
            assertTrue(json.isNumber(), json.toString());
            assertEquals(value, json.asDouble(), Math.abs(value) * 5.0001e-6, json.toString());
        } else {
            assertTrue(json.isNull(), json.toString());
        }
    }

    @Property
    void everyLongReadsBackExactly(@ForAll long value) throws Exception {
        assertEquals(value, JSON.readTree(new JsonObject().put("n", value).toString()).path("n").asLong());
    }
}
