package io.farm.hashtable.ycsb;

import io.farm.hashtable.HashTableConfig;

import java.util.List;
import java.util.Properties;
import java.util.TreeSet;

/**
 * The binding's properties (YCSB {@code -p key=value} or a {@code -P} file): which table the
 * records go to and, if the binding creates it, its shape. They shape the table only when it is
 * created (by the first {@link FarmDB} of the JVM to start, if the table does not exist yet); an
 * existing table is used as it is.
 *
 * <table>
 *   <caption>Properties</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code farm.table}</td><td>YCSB's {@code table} ({@code usertable})</td><td>the table's name</td></tr>
 *   <tr><td>{@code farm.table.shards}</td><td>6</td><td>shards, spread over the nodes</td></tr>
 *   <tr><td>{@code farm.table.buckets}</td><td>1024</td><td>home buckets per shard</td></tr>
 *   <tr><td>{@code farm.table.neighbourhood}</td><td>8</td><td>H, slots of a key's two buckets</td></tr>
 *   <tr><td>{@code farm.table.inline}</td><td>0</td><td>longest record stored inline in its slot; longer ones live in objects of their own</td></tr>
 *   <tr><td>{@code farm.table.maxkey}</td><td>32</td><td>longest key, UTF-8 bytes (YCSB keys are "user" and up to 19 digits)</td></tr>
 *   <tr><td>{@code farm.table.maxvalue}</td><td>8192</td><td>longest encoded record ({@link RecordEncoding}); also bounded by the message size of the cluster's rings</td></tr>
 * </table>
 * The shape's ranges are {@link HashTableConfig}'s; another {@code farm.table.*} key is an error.
 *
 * @param table  the table's name
 * @param config its shape, if created
 */
public record TableProperties(String table, HashTableConfig config) {
    /** The table's name. */
    public static final String TABLE = "farm.table";
    /** Shards. */
    public static final String SHARDS = "farm.table.shards";
    /** Home buckets per shard. */
    public static final String BUCKETS = "farm.table.buckets";
    /** Neighbourhood H. */
    public static final String NEIGHBOURHOOD = "farm.table.neighbourhood";
    /** Longest inline record. */
    public static final String INLINE = "farm.table.inline";
    /** Longest key. */
    public static final String MAX_KEY = "farm.table.maxkey";
    /** Longest encoded record. */
    public static final String MAX_VALUE = "farm.table.maxvalue";

    private static final List<String> KEYS = List.of(TABLE, SHARDS, BUCKETS, NEIGHBOURHOOD, INLINE, MAX_KEY, MAX_VALUE);
    /** YCSB's own table property, the default of {@link #TABLE}. */
    private static final String YCSB_TABLE = "table";
    private static final String YCSB_DEFAULT_TABLE = "usertable";

    /**
     * Reads the binding's properties from {@code properties}.
     *
     * @throws IllegalArgumentException naming the key, its value and what is accepted, for an
     *                                  unknown {@code farm.table.*} key, a value that is not an
     *                                  integer, or a shape {@link HashTableConfig} refuses
     */
    public static TableProperties from(Properties properties) {
        for (String key : properties.stringPropertyNames()) {
            if (key.startsWith(TABLE + ".") && !KEYS.contains(key)) {
                throw new IllegalArgumentException("unknown property " + key + ": the binding's properties are "
                    + new TreeSet<>(KEYS));
            }
        }
        String table = properties.getProperty(TABLE, properties.getProperty(YCSB_TABLE, YCSB_DEFAULT_TABLE));
        HashTableConfig config;
        try {
            config = HashTableConfig.of(integer(properties, NEIGHBOURHOOD, 8), integer(properties, MAX_KEY, 32),
                integer(properties, INLINE, 0), integer(properties, MAX_VALUE, 8192), integer(properties, SHARDS, 6),
                integer(properties, BUCKETS, 1024));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the farm.table.* properties give a table shape that is not accepted: "
                + e.getMessage(), e);
        }
        return new TableProperties(table, config);
    }

    private static int integer(Properties properties, String key, int defaultValue) {
        String value = properties.getProperty(key);
        if (value == null) {
            return defaultValue;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("property " + key + "=" + value + " is not accepted: an integer");
        }
    }
}
