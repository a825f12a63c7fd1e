package io.farm.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JsonObjectTest {
    private static JsonNode parse(JsonObject object) throws Exception {
        return new ObjectMapper().readTree(object.toString());
    }

    @Test
    void fieldsKeepTheirOrderAndTypes() {
        JsonObject object = new JsonObject().put("name", "fabric").put("size", 64).put("ok", true).put("ratio", 0.5);

        assertEquals("{\"name\":\"fabric\",\"size\":64,\"ok\":true,\"ratio\":0.5}", object.toString());
        assertEquals(64L, object.get("size"));
        assertEquals(0.5, object.get("ratio"));
        assertNull(object.get("missing"));
    }

    @Test
    void stringsAreEscaped() throws Exception {
        String nasty = "quote \" backslash \\ newline \n return \r tab \t bell \u0007 nul \0 unicode é ∑ \uD83D\uDE00 slash /";
        JsonObject object = new JsonObject().put("key \"with\" quotes\n", nasty);

        String text = object.toString();

        assertTrue(text.contains("\\\"") && text.contains("\\\\") && text.contains("\\n") && text.contains("\\r")
            && text.contains("\\t") && text.contains("\\u0007") && text.contains("\\u0000"), text);
        assertEquals(1, text.lines().count(), "one line: " + text);
        assertEquals(nasty, parse(object).path("key \"with\" quotes\n").asText());
    }

    @Test
    void numbersKeepSixSignificantDigitsAndTheirIntegerZeros() {
        List<double[]> cases = List.of(new double[] {200000.0}, new double[] {100000.0}, new double[] {123456.0},
            new double[] {10.0}, new double[] {0.5}, new double[] {0.2}, new double[] {1e-5}, new double[] {1.5e7},
            new double[] {1234567.0}, new double[] {0.0}, new double[] {-2.5});
        List<String> printed = List.of("200000", "100000", "123456", "10", "0.5", "0.2", "1e-05", "1.5e+07", "1.23457e+06",
            "0", "-2.5");
        for (int i = 0; i < cases.size(); i++) {
            assertEquals("{\"x\":" + printed.get(i) + "}", new JsonObject().put("x", cases.get(i)[0]).toString());
        }
        assertEquals("{\"max\":9223372036854775807,\"min\":-9223372036854775808}",
            new JsonObject().put("max", Long.MAX_VALUE).put("min", Long.MIN_VALUE).toString());
    }

    @Test
    void nanAndInfinitiesBecomeNull() throws Exception {
        JsonObject object = new JsonObject().put("nan", Double.NaN).put("up", Double.POSITIVE_INFINITY)
            .put("down", Double.NEGATIVE_INFINITY).put("none", (String) null);

        assertEquals("{\"nan\":null,\"up\":null,\"down\":null,\"none\":null}", object.toString());
        JsonNode json = parse(object);
        assertTrue(json.path("nan").isNull() && json.path("up").isNull() && json.path("down").isNull(), json.toString());
    }

    @Test
    void objectsNest() throws Exception {
        JsonObject object = new JsonObject()
            .put("accounting", new JsonObject().put("read_ops", 3).put("inner", new JsonObject()))
            .put("after", 1);

        assertEquals("{\"accounting\":{\"read_ops\":3,\"inner\":{}},\"after\":1}", object.toString());
        JsonNode json = parse(object);
        assertEquals(3, json.path("accounting").path("read_ops").asInt());
        assertTrue(json.path("accounting").path("inner").isObject());
        assertEquals("{}", new JsonObject().toString());
    }
}
