package io.farm.bench.report;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A flat or nested JSON object built in insertion order: what a benchmark prints as the last
 * line of its stdout with {@code --json} (DESIGN §12).
 */
public final class JsonObject {
    private final Map<String, Object> fields = new LinkedHashMap<>();

    /** Adds a string field. */
    public JsonObject put(String name, String value) {
        fields.put(name, value);
        return this;
    }

    /** Adds an integer field. */
    public JsonObject put(String name, long value) {
        fields.put(name, value);
        return this;
    }

    /** Adds a number field; NaN and infinities become null. */
    public JsonObject put(String name, double value) {
        fields.put(name, value);
        return this;
    }

    /** Adds a boolean field. */
    public JsonObject put(String name, boolean value) {
        fields.put(name, value);
        return this;
    }

    /** Adds a nested object. */
    public JsonObject put(String name, JsonObject value) {
        fields.put(name, value);
        return this;
    }

    /** The value of a field, or null. */
    public Object get(String name) {
        return fields.get(name);
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder(256).append('{');
        boolean first = true;
        for (Map.Entry<String, Object> field : fields.entrySet()) {
            if (!first) {
                out.append(',');
            }
            first = false;
            appendString(out, field.getKey());
            out.append(':');
            appendValue(out, field.getValue());
        }
        return out.append('}').toString();
    }

    private static void appendValue(StringBuilder out, Object value) {
        switch (value) {
            case null -> out.append("null");
            case String s -> appendString(out, s);
            case Double d when d.isNaN() || d.isInfinite() -> out.append("null");
            case Double d -> appendNumber(out, d);
            default -> out.append(value);
        }
    }

    /**
     * Six significant digits, without the zeros that end a fraction: 200000.0 is {@code 200000},
     * 0.5 is {@code 0.5}, 1.5e7 is {@code 1.5e+07}. Only zeros after a decimal point are dropped.
     */
    private static void appendNumber(StringBuilder out, double d) {
        String formatted = String.format(Locale.ROOT, "%.6g", d);
        int exponent = formatted.indexOf('e');
        int end = exponent < 0 ? formatted.length() : exponent;
        int mantissaEnd = end;
        if (formatted.lastIndexOf('.', end) >= 0) {
            while (formatted.charAt(mantissaEnd - 1) == '0') {
                mantissaEnd--;
            }
            if (formatted.charAt(mantissaEnd - 1) == '.') {
                mantissaEnd--;
            }
        }
        out.append(formatted, 0, mantissaEnd).append(formatted, end, formatted.length());
    }

    private static void appendString(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
