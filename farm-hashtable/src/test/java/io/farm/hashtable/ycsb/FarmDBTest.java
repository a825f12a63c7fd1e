package io.farm.hashtable.ycsb;

import io.farm.core.Farm;
import io.farm.core.cluster.EmbeddedCluster;
import io.farm.core.config.ClusterConfig;
import io.farm.hashtable.HashTableConfig;
import io.farm.hashtable.HashTables;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The YCSB binding through YCSB's DB API, on a 3-node embedded cluster with 2 backups. */
class FarmDBTest {
    @TempDir
    static Path dataDir;

    private static EmbeddedCluster cluster;
    private static List<Farm> farms;
    private static List<HashTables> tables;
    private static YcsbNode bound;

    @BeforeAll
    static void start() {
        cluster = EmbeddedCluster.start(ClusterConfig.builder().name("ycsb-db").memberCount(3).backups(2)
            .fabric("local").threads(2).regionSize(16 << 20).dataDir(dataDir).build());
        farms = Farm.attachAll(cluster.nodes());
        tables = HashTables.attachAll(farms);
        tables.forEach(FieldMerge::register);
        bound = YcsbNode.bind(farms.get(1), tables.get(1));
    }

    @AfterAll
    static void stop() {
        bound.close();
        cluster.close();
    }

    private static FarmDB db(String... properties) throws DBException {
        Properties p = new Properties();
        for (int i = 0; i < properties.length; i += 2) {
            p.setProperty(properties[i], properties[i + 1]);
        }
        FarmDB db = new FarmDB();
        db.setProperties(p);
        db.init();
        return db;
    }

    private static Map<String, ByteIterator> fields(String... namesAndValues) {
        Map<String, String> fields = new HashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            fields.put(namesAndValues[i], namesAndValues[i + 1]);
        }
        return StringByteIterator.getByteIteratorMap(fields);
    }

    private static Map<String, String> read(FarmDB db, String table, String key, Set<String> fields) {
        Map<String, ByteIterator> result = new HashMap<>();
        assertEquals(Status.OK, db.read(table, key, fields, result));
        return StringByteIterator.getStringMap(result);
    }

    @Test
    void insertReadUpdateDeleteOfARecord() throws DBException {
        FarmDB db = db("farm.table", "crud", "farm.table.buckets", "64");
        assertEquals(Status.OK, db.insert("crud", "user1", fields("field0", "a", "field1", "b", "field2", "c")));
        assertEquals(FarmDB.ALREADY_EXISTS, db.insert("crud", "user1", fields("field0", "x")));
        assertEquals(Map.of("field0", "a", "field1", "b", "field2", "c"), read(db, "crud", "user1", null));
        assertEquals(Map.of("field2", "c"), read(db, "crud", "user1", Set.of("field2", "field9")));

        assertEquals(Status.OK, db.update("crud", "user1", fields("field1", "B", "field3", "d")));
        assertEquals(Map.of("field0", "a", "field1", "B", "field2", "c", "field3", "d"), read(db, "crud", "user1", null));
        // Another instance (another worker) and another node's view of the table see the same record.
        FarmDB other = db("farm.table", "crud");
        assertNotEquals(db.worker(), other.worker());
        assertEquals(Map.of("field1", "B"), read(other, "crud", "user1", Set.of("field1")));
        assertArrayEquals("B".getBytes(StandardCharsets.UTF_8), RecordEncoding.decode(
            tables.get(2).open("crud").getBlocking(0, "user1".getBytes(StandardCharsets.UTF_8))).get("field1"));

        assertEquals(Status.OK, db.delete("crud", "user1"));
        assertEquals(Status.NOT_FOUND, db.delete("crud", "user1"));
        assertEquals(Status.NOT_FOUND, db.read("crud", "user1", null, new HashMap<>()));
        assertEquals(Status.NOT_FOUND, db.update("crud", "user1", fields("field0", "z")));
        assertEquals(Status.NOT_FOUND, db.read("crud", "user1", null, new HashMap<>()));
    }

    @Test
    void scanIsNotImplementedAndReturnsNothing() throws DBException {
        FarmDB db = db("farm.table", "scans", "farm.table.buckets", "16");
        assertEquals(Status.OK, db.insert("scans", "user1", fields("field0", "a")));
        Vector<HashMap<String, ByteIterator>> result = new Vector<>();
        assertEquals(Status.NOT_IMPLEMENTED, db.scan("scans", "user1", 10, null, result));
        assertTrue(result.isEmpty());
    }

    @Test
    void concurrentUpdatesOfDifferentFieldsOfOneRecordAllSurvive() throws Exception {
        int threads = 4;
        int rounds = 40;
        List<FarmDB> dbs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            dbs.add(db("farm.table", "merges", "farm.table.buckets", "16"));
        }
        assertEquals(Status.OK, dbs.getFirst().insert("merges", "hot", fields("base", "0")));
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            FarmDB db = dbs.get(t);
            String field = "field" + t;
            runs.add(CompletableFuture.runAsync(() -> {
                for (int r = 0; r < rounds; r++) {
                    assertEquals(Status.OK, db.update("merges", "hot", fields(field, Integer.toString(r))));
                }
            }, command -> Thread.ofPlatform().start(command)));
        }
        for (CompletableFuture<Void> run : runs) {
            run.join();
        }
        Map<String, String> expected = new HashMap<>(Map.of("base", "0"));
        for (int t = 0; t < threads; t++) {
            expected.put("field" + t, Integer.toString(rounds - 1));
        }
        assertEquals(expected, read(dbs.getFirst(), "merges", "hot", null));
    }

    @Test
    void refusedKeysRecordsAndTablesAreBadRequestsThatChangeNothing() throws DBException {
        FarmDB db = db("farm.table", "limits", "farm.table.buckets", "16", "farm.table.maxkey", "8",
            "farm.table.maxvalue", "64");
        Status longKey = db.insert("limits", "a-key-longer-than-8", fields("f", "v"));
        assertEquals(Status.BAD_REQUEST.getName(), longKey.getName());
        assertTrue(longKey.getDescription().contains("keys are 1..8 bytes"), longKey.getDescription());

        Status bigRecord = db.insert("limits", "k", fields("f", "v".repeat(100)));
        assertEquals(Status.BAD_REQUEST.getName(), bigRecord.getName());
        assertTrue(bigRecord.getDescription().contains("at most 64 bytes"), bigRecord.getDescription());
        assertEquals(Status.NOT_FOUND, db.read("limits", "k", null, new HashMap<>()));

        assertEquals(Status.OK, db.insert("limits", "k", fields("f", "v")));
        Status growing = db.update("limits", "k", fields("g", "w".repeat(100)));
        assertEquals(Status.BAD_REQUEST.getName(), growing.getName());
        assertEquals(Map.of("f", "v"), read(db, "limits", "k", null));
        // The changes fit, the merged record does not: the shard's primary refuses the merge.
        assertEquals(Status.OK, db.update("limits", "k", fields("f", "v".repeat(30))));
        Status mergedTooLong = db.update("limits", "k", fields("g", "w".repeat(30)));
        assertFalse(mergedTooLong.isOk(), mergedTooLong.toString());
        assertTrue(mergedTooLong.getDescription().contains("0..64 bytes"), mergedTooLong.getDescription());
        assertEquals(Map.of("f", "v".repeat(30)), read(db, "limits", "k", null));

        Status otherTable = db.read("usertable", "k", null, new HashMap<>());
        assertEquals(Status.BAD_REQUEST.getName(), otherTable.getName());
        assertTrue(otherTable.getDescription().contains("not the binding's table limits"), otherTable.getDescription());
    }

    @Test
    void theTableIsCreatedOnceWithTheShapeOfTheProperties() throws DBException {
        db("table", "shaped", "farm.table.shards", "3", "farm.table.buckets", "32", "farm.table.neighbourhood", "4",
            "farm.table.inline", "16", "farm.table.maxkey", "24", "farm.table.maxvalue", "512");
        HashTableConfig expected = HashTableConfig.of(4, 24, 16, 512, 3, 32);
        assertEquals(expected, tables.get(0).open("shaped").config());
        // A later instance with another shape uses the table as it is.
        db("table", "shaped", "farm.table.shards", "5");
        assertEquals(expected, tables.get(1).open("shaped").config());
    }

    @Test
    void badPropertiesAndAMissingNodeAreRefusedAtInit() throws DBException {
        assertTrue(assertThrows(DBException.class, () -> db("farm.table.bucket", "4")).getMessage()
            .contains("unknown property farm.table.bucket"));
        assertTrue(assertThrows(DBException.class, () -> db("farm.table.shards", "many")).getMessage()
            .contains("farm.table.shards=many is not accepted: an integer"));
        assertTrue(assertThrows(DBException.class, () -> db("farm.table.neighbourhood", "7")).getMessage()
            .contains("neighbourhood H 7 is odd"));
        bound.close();
        try {
            assertTrue(assertThrows(DBException.class, () -> db("farm.table", "none")).getMessage()
                .contains("no farm node is bound in this JVM"));
        } finally {
            bound = YcsbNode.bind(farms.get(1), tables.get(1));
        }
    }
}
