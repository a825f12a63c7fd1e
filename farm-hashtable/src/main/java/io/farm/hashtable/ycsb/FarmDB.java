package io.farm.hashtable.ycsb;

import io.farm.hashtable.HashTable;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The YCSB binding ({@code -db io.farm.hashtable.ycsb.FarmDB}): YCSB records in a farm hashtable.
 * A record is stored under its key's UTF-8 bytes as one value, its fields in
 * {@link RecordEncoding}; the table is named and shaped by {@link TableProperties}.
 *
 * <p>YCSB makes one instance per client thread. Each runs on the node bound in this JVM
 * ({@link YcsbNode}) and sends its operations to one worker of that node (round robin over the
 * instances) through the hashtable's blocking facade: a YCSB thread is not a farm worker.
 * <ul>
 *   <li>{@link #read}: one lock-free lookup; the selected fields (all if none are named).</li>
 *   <li>{@link #insert}: insert if absent; a key already present gives {@link #ALREADY_EXISTS}.</li>
 *   <li>{@link #update}: merges the given fields into the stored record with
 *       {@link io.farm.hashtable.HashTable#merge}: the changed fields are shipped to the key's
 *       shard primary, which merges them ({@link FieldMerge}) in the transaction that writes the
 *       record, so concurrent updates and deletes of a key, from any process, are never lost or
 *       undone. Every node holding shards must have {@link FieldMerge} registered.</li>
 *   <li>{@link #delete}: remove if present.</li>
 *   <li>{@link #scan}: {@link Status#NOT_IMPLEMENTED}; a hash table keeps no key order.</li>
 * </ul>
 * A key, table or record the table refuses gives {@code BAD_REQUEST}, any other failure
 * {@link Status#ERROR}; the first of each is printed on stderr with its reason.
 */
public final class FarmDB extends DB {
    /** The status of an insert whose key is present already (nothing changed). */
    public static final Status ALREADY_EXISTS = new Status("ALREADY_EXISTS", "a record with this key exists");
    private static final String BAD_REQUEST = Status.BAD_REQUEST.getName();
    private static final AtomicBoolean REPORTED_BAD_REQUEST = new AtomicBoolean();
    private static final AtomicBoolean REPORTED_ERROR = new AtomicBoolean();

    private HashTable table;
    private int worker;

    /**
     * Binds this instance to the JVM's node, its table (opened, or created once) and a worker.
     *
     * @throws DBException if no node is bound in this JVM, a property is not accepted, or the
     *                     table can neither be opened nor created
     */
    @Override
    public void init() throws DBException {
        YcsbNode bound = YcsbNode.bound();
        if (bound == null) {
            throw new DBException("no farm node is bound in this JVM: run YCSB through 'bin/farm ycsb', which starts or "
                + "joins a cluster and binds its node (or call YcsbNode.bind first)");
        }
        TableProperties properties;
        try {
            properties = TableProperties.from(getProperties());
        } catch (IllegalArgumentException e) {
            throw new DBException(e.getMessage(), e);
        }
        try {
            table = bound.table(properties);
        } catch (RuntimeException e) {
            throw new DBException("table " + properties.table() + " could be neither opened nor created on node "
                + bound.nodeId() + ": " + e.getMessage(), e);
        }
        worker = bound.nextWorker();
    }

    /** The worker of the bound node this instance uses. */
    public int worker() {
        return worker;
    }

    @Override
    public Status read(String tableName, String key, Set<String> fields, Map<String, ByteIterator> result) {
        try {
            byte[] record = lookup(key(tableName, key));
            if (record == null) {
                return Status.NOT_FOUND;
            }
            for (Map.Entry<String, byte[]> field : RecordEncoding.decode(record, fields).entrySet()) {
                result.put(field.getKey(), new ByteArrayByteIterator(field.getValue()));
            }
            return Status.OK;
        } catch (RuntimeException e) {
            return failed("read", key, e);
        }
    }

    /** Not implemented: a hash table keeps no order of its keys to scan in. */
    @Override
    public Status scan(String tableName, String startKey, int recordCount, Set<String> fields,
                       Vector<HashMap<String, ByteIterator>> result) {
        return Status.NOT_IMPLEMENTED;
    }

    @Override
    public Status update(String tableName, String key, Map<String, ByteIterator> values) {
        try {
            byte[] keyBytes = key(tableName, key);
            byte[] changes = checked(RecordEncoding.encode(bytes(values)));
            return table.mergeBlocking(worker, keyBytes, FieldMerge.ID, changes) ? Status.OK : Status.NOT_FOUND;
        } catch (RuntimeException e) {
            return failed("update", key, e);
        }
    }

    @Override
    public Status insert(String tableName, String key, Map<String, ByteIterator> values) {
        try {
            byte[] keyBytes = key(tableName, key);
            byte[] record = checked(RecordEncoding.encode(bytes(values)));
            return table.insertBlocking(worker, keyBytes, record) ? Status.OK : ALREADY_EXISTS;
        } catch (RuntimeException e) {
            return failed("insert", key, e);
        }
    }

    @Override
    public Status delete(String tableName, String key) {
        try {
            byte[] keyBytes = key(tableName, key);
            return table.removeBlocking(worker, keyBytes) ? Status.OK : Status.NOT_FOUND;
        } catch (RuntimeException e) {
            return failed("delete", key, e);
        }
    }

    /** The stored record of {@code key}, or null (a lookup restarts by itself after a slow fabric read). */
    private byte[] lookup(byte[] key) {
        return table.getBlocking(worker, key);
    }

    private byte[] key(String tableName, String key) {
        if (!table.name().equals(tableName)) {
            throw new IllegalArgumentException("YCSB table " + tableName + " is not the binding's table " + table.name()
                + ": set farm.table (or YCSB's table) to the same name");
        }
        return key.getBytes(StandardCharsets.UTF_8);
    }

    private byte[] checked(byte[] record) {
        int limit = table.config().maxValueLength();
        if (record.length > limit) {
            throw new IllegalArgumentException("a record of " + record.length + " encoded bytes exceeds table "
                + table.name() + "'s values of at most " + limit + " bytes (" + TableProperties.MAX_VALUE
                + " when the binding creates the table; or fewer or shorter fields: fieldcount, fieldlength)");
        }
        return record;
    }

    private static Map<String, byte[]> bytes(Map<String, ByteIterator> values) {
        Map<String, byte[]> fields = new LinkedHashMap<>();
        for (Map.Entry<String, ByteIterator> value : values.entrySet()) {
            fields.put(value.getKey(), value.getValue().toArray());
        }
        return fields;
    }

    private static Status failed(String operation, String key, RuntimeException e) {
        boolean badRequest = e instanceof IllegalArgumentException;
        AtomicBoolean reported = badRequest ? REPORTED_BAD_REQUEST : REPORTED_ERROR;
        if (reported.compareAndSet(false, true)) {
            System.err.println("farm: YCSB " + operation + " of key " + key + " failed (later failures of this kind are"
                + " only counted): " + e);
        }
        return badRequest ? new Status(BAD_REQUEST, e.getMessage()) : new Status(Status.ERROR.getName(), e.toString());
    }
}
