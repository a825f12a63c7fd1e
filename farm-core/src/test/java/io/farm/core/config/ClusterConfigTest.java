package io.farm.core.config;

import io.farm.core.placement.Member;
import io.farm.core.node.IdleStrategies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.function.Executable;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClusterConfigTest {
    private static final int CPUS = Runtime.getRuntime().availableProcessors();

    /** Asserts that {@code action} is rejected with a message containing every fragment. */
    private static void rejected(Executable action, String... fragments) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, action);
        for (String fragment : fragments) {
            assertTrue(e.getMessage().contains(fragment), "'" + fragment + "' missing from: " + e.getMessage());
        }
    }

    /** Properties of a valid 3-member cluster plus {@code extra}. */
    private static Properties properties(Map<String, String> extra) {
        Properties p = new Properties();
        p.setProperty("farm.member.0.name", "a");
        p.setProperty("farm.member.1.name", "b");
        p.setProperty("farm.member.2.name", "c");
        extra.forEach(p::setProperty);
        return p;
    }

    private static ClusterConfig withProperty(String key, String value) {
        return ClusterConfig.fromProperties(properties(Map.of(key, value)));
    }

    @Test
    void defaults() {
        ClusterConfig config = ClusterConfig.builder().memberCount(3).build();
        assertEquals("farm", config.name());
        assertEquals(List.of(new Member(0, "node0"), new Member(1, "node1"), new Member(2, "node2")), config.members());
        assertEquals(FabricKind.LOCAL, config.fabric());
        assertEquals(1L << 31, config.regionSize());
        assertEquals(2, config.threads());
        assertEquals(2, config.backups());
        assertEquals(100, config.rings());
        assertEquals(64 * 1024, config.messageRingCapacity());
        assertEquals(64 * 1024, config.logRingCapacity());
        assertEquals("backoff", config.idleStrategy());
        assertFalse(config.pinsThreads());
        assertEquals(ClusterConfig.defaultDataDir("farm"), config.dataDir());
        assertEquals("farm", config.dataDir().getFileName().toString());
        assertTrue(config.dataDir().getParent().getFileName().toString().startsWith("farm-"), config.dataDir().toString());
    }

    @Test
    void backupsDefaultToTwoFromThreeMembersAndToAllOthersBelow() {
        assertEquals(0, ClusterConfig.builder().memberCount(1).build().backups());
        assertTrue(ClusterConfig.builder().memberCount(1).build().cacheMode());
        assertEquals(1, ClusterConfig.builder().memberCount(2).build().backups());
        assertEquals(2, ClusterConfig.builder().memberCount(3).build().backups());
        assertEquals(2, ClusterConfig.builder().memberCount(7).build().backups());
        assertEquals(3, ClusterConfig.builder().memberCount(7).build().replicas());
    }

    @Test
    void backupsMustBeBelowTheMemberCount() {
        assertEquals(0, ClusterConfig.builder().memberCount(3).backups(0).build().backups());
        assertEquals(2, ClusterConfig.builder().memberCount(3).backups(2).build().backups());
        rejected(() -> ClusterConfig.builder().memberCount(3).backups(3).build(), "farm.backups = 3", "0..2", "cache mode");
        rejected(() -> ClusterConfig.builder().backups(-1), "farm.backups = -1", "0..N-1");
        rejected(() -> withProperty("farm.backups", "3"), "farm.backups = 3");
    }

    @Test
    void nodeRegionsLimitIsOffByDefaultAndChecked() {
        assertEquals(0, ClusterConfig.builder().memberCount(1).build().nodeRegions());
        assertEquals(5, withProperty("farm.node.regions", "5").nodeRegions());
        rejected(() -> ClusterConfig.builder().nodeRegions(-1), "farm.node.regions = -1", "0 (no limit)");
        rejected(() -> withProperty("farm.node.regions", "16777217"), "farm.node.regions = 16777217");
    }

    @Test
    void hugePagesAreAskedForOnlyWhenConfigured() {
        assertFalse(ClusterConfig.builder().memberCount(1).build().hugePages());
        assertTrue(ClusterConfig.builder().memberCount(1).hugePages(true).build().hugePages());
        assertTrue(withProperty("farm.huge.pages", "true").hugePages());
        assertFalse(withProperty("farm.huge.pages", "false").hugePages());
        rejected(() -> withProperty("farm.huge.pages", "yes"), "farm.huge.pages = 'yes'", "true or false");
        ClusterConfig config = ClusterConfig.builder().memberCount(2).hugePages(true).build();
        assertEquals(config, ClusterConfig.fromProperties(config.toProperties()));
    }

    @Test
    void clusterNameIsAPathSafeName() {
        assertEquals("bench-1.a_b", ClusterConfig.builder().name("bench-1.a_b").memberCount(1).build().name());
        for (String bad : new String[] {"", "a/b", ".hidden", "-x", "a b", "x".repeat(65)}) {
            rejected(() -> ClusterConfig.builder().name(bad), "farm.cluster.name = '" + bad + "'", "letters, digits");
        }
        rejected(() -> ClusterConfig.builder().name(null), "farm.cluster.name = null");
    }

    @Test
    void aClusterNeedsAMember() {
        rejected(() -> ClusterConfig.builder().build(), "farm.member.0.name is missing", "at least one member");
        rejected(() -> ClusterConfig.fromProperties(new Properties()), "farm.member.0.name is missing");
    }

    @Test
    void memberIdsAreContiguousFromZero() {
        Properties gap = new Properties();
        gap.setProperty("farm.member.0.name", "a");
        gap.setProperty("farm.member.2.name", "c");
        rejected(() -> ClusterConfig.fromProperties(gap), "farm.member.1.name is missing", "contiguous", "farm.member.2.name");
        Properties noZero = new Properties();
        noZero.setProperty("farm.member.1.name", "b");
        rejected(() -> ClusterConfig.fromProperties(noZero), "farm.member.0.name is missing");
        // ids are numbers, so 10 comes after 9, not after 1
        Properties eleven = new Properties();
        for (int i = 0; i <= 10; i++) {
            eleven.setProperty(ClusterConfig.memberKey(i), "m" + i);
        }
        ClusterConfig config = ClusterConfig.fromProperties(eleven);
        assertEquals(new Member(10, "m10"), config.member(10));
        assertEquals(new Member(2, "m2"), config.member(2));
    }

    @Test
    void memberIdsAreDecimalIntegersInRange() {
        for (String id : new String[] {"x", "-1", "01", "65536", "1.5"}) {
            rejected(() -> withProperty("farm.member." + id + ".name", "z"), "farm.member." + id + ".name",
                "member id '" + id + "'", "0..65535");
        }
    }

    @Test
    void memberNamesAreValidAndUnique() {
        rejected(() -> ClusterConfig.builder().members("a", "b", "a"), "farm.member.2.name = 'a'", "member 0 has that name");
        rejected(() -> ClusterConfig.builder().member("bad name"), "farm.member.0.name = 'bad name'", "letters, digits");
        rejected(() -> withProperty("farm.member.3.name", "b"), "farm.member.3.name = 'b'", "unique");
    }

    @Test
    void atMost65536Members() {
        assertEquals(ClusterConfig.MAX_MEMBERS, ClusterConfig.builder().memberCount(ClusterConfig.MAX_MEMBERS).build().size());
        rejected(() -> ClusterConfig.builder().memberCount(ClusterConfig.MAX_MEMBERS + 1), "1..65536 members");
        rejected(() -> ClusterConfig.builder().memberCount(0), "1..65536 members");
        ClusterConfig.Builder full = ClusterConfig.builder().memberCount(ClusterConfig.MAX_MEMBERS);
        rejected(() -> full.member("one-more"), "farm.member.65536.name", "at most 65536 members");
    }

    @Test
    void aRejectedValueLeavesTheBuilderUnchanged() {
        ClusterConfig.Builder builder = ClusterConfig.builder().members("a", "b").threads(4);
        assertThrows(IllegalArgumentException.class, () -> builder.threads(0));
        assertThrows(IllegalArgumentException.class, () -> builder.members("x", "y", "x"));
        ClusterConfig config = builder.build();
        assertEquals(4, config.threads());
        assertEquals(List.of(new Member(0, "a"), new Member(1, "b")), config.members());
    }

    @Test
    void fabricIsLocalOrShm() {
        assertEquals(FabricKind.SHM, withProperty("farm.fabric", "shm").fabric());
        assertEquals(FabricKind.LOCAL, withProperty("farm.fabric", "local").fabric());
        for (String bad : new String[] {"tcp", "rdma", "LOCAL", ""}) {
            rejected(() -> withProperty("farm.fabric", bad), "farm.fabric", "'" + bad + "'", "local, shm",
                "tcp and rdma are not implemented yet");
        }
    }

    @Test
    void regionSizeIsAPowerOfTwoFrom4KiBTo2GiB() {
        assertEquals(4096, withProperty("farm.region.size", "4096").regionSize());
        assertEquals(64L << 20, withProperty("farm.region.size", "64m").regionSize());
        assertEquals(1L << 31, withProperty("farm.region.size", "2G").regionSize());
        assertEquals(8192, withProperty("farm.region.size", "8k").regionSize());
        for (String bad : new String[] {"1000", "2048", "4g", "3m"}) {
            rejected(() -> withProperty("farm.region.size", bad), "farm.region.size", "power of two", "4096", "2147483648");
        }
        for (String bad : new String[] {"", "abc", "12q", "k", "-4096", "1.5g"}) {
            rejected(() -> withProperty("farm.region.size", bad), "farm.region.size = '" + bad + "'", "number of bytes");
        }
        rejected(() -> withProperty("farm.region.size", "99999999999999999999g"), "farm.region.size", "too large");
        rejected(() -> withProperty("farm.region.size", "9999999999999g"), "farm.region.size", "too large");
    }

    @Test
    void threadsAreOneTo64() {
        assertEquals(1, withProperty("farm.threads", "1").threads());
        assertEquals(64, withProperty("farm.threads", "64").threads());
        rejected(() -> withProperty("farm.threads", "0"), "farm.threads = 0", "1..64");
        rejected(() -> withProperty("farm.threads", "65"), "farm.threads = 65", "1..64");
        rejected(() -> withProperty("farm.threads", "two"), "farm.threads = 'two'", "decimal integer");
    }

    @Test
    void ringsAreOneTo255() {
        assertEquals(1, withProperty("farm.rings", "1").rings());
        assertEquals(255, withProperty("farm.rings", "255").rings());
        rejected(() -> withProperty("farm.rings", "0"), "farm.rings = 0", "1..255");
        rejected(() -> withProperty("farm.rings", "256"), "farm.rings = 256", "1..255");
    }

    @Test
    void ringCapacitiesArePowersOfTwoFrom4KiBTo1GiB() {
        for (String key : new String[] {"farm.message.ring.capacity", "farm.log.ring.capacity"}) {
            assertEquals(4096, capacity(withProperty(key, "4096"), key));
            assertEquals(1 << 30, capacity(withProperty(key, "1g"), key));
            assertEquals(1 << 20, capacity(withProperty(key, "1m"), key));
            for (String bad : new String[] {"2048", "4095", "6000", "2g"}) {
                rejected(() -> withProperty(key, bad), key, "power of two from 4096");
            }
        }
        rejected(() -> ClusterConfig.builder().messageRingCapacity(12288), "farm.message.ring.capacity = 12288");
        rejected(() -> ClusterConfig.builder().logRingCapacity(-4096), "farm.log.ring.capacity = -4096");
    }

    private static int capacity(ClusterConfig config, String key) {
        return key.startsWith("farm.message") ? config.messageRingCapacity() : config.logRingCapacity();
    }

    @Test
    void idleStrategyIsANamedStrategy() {
        for (String name : IdleStrategies.NAMES) {
            assertEquals(name, withProperty("farm.idle.strategy", name).idleStrategy());
        }
        rejected(() -> withProperty("farm.idle.strategy", "busy"), "farm.idle.strategy", "'busy'", "backoff", "spin",
            "yield", "sleep");
    }

    @Test
    void cpusExistAndAreListedOnce() {
        assertArrayEquals(new int[] {0}, withProperty("farm.cpus", "0").cpus());
        assertArrayEquals(new int[0], withProperty("farm.cpus", "").cpus());
        rejected(() -> withProperty("farm.cpus", Integer.toString(CPUS)), "farm.cpus = '" + CPUS + "'",
            "cpu " + CPUS + " does not exist", "0.." + (CPUS - 1));
        rejected(() -> ClusterConfig.builder().cpus(-1), "farm.cpus", "cpu -1 does not exist");
        rejected(() -> withProperty("farm.cpus", "0, 0"), "farm.cpus", "cpu 0 is listed twice");
        rejected(() -> withProperty("farm.cpus", "0,x"), "farm.cpus = '0,x'", "comma-separated");
        rejected(() -> withProperty("farm.cpus", "0,"), "farm.cpus = '0,'", "comma-separated");
    }

    @Test
    void cpusAreDealtToTheWorkersOfAllNodesInTurn() {
        ClusterConfig config = ClusterConfig.builder().memberCount(3).threads(2).cpus(0).build();
        assertTrue(config.pinsThreads());
        for (int node = 0; node < 3; node++) {
            for (int worker = 0; worker < 2; worker++) {
                assertEquals(0, config.cpuFor(node, worker));
            }
        }
        if (CPUS >= 2) {
            ClusterConfig two = ClusterConfig.builder().memberCount(2).threads(3).cpus(1, 0).build();
            // node 0: workers 0,1,2 -> cpus[0], cpus[1], cpus[0]; node 1 continues the deal: cpus[1], cpus[0], cpus[1]
            assertEquals(List.of(1, 0, 1, 0, 1, 0), List.of(two.cpuFor(0, 0), two.cpuFor(0, 1), two.cpuFor(0, 2),
                two.cpuFor(1, 0), two.cpuFor(1, 1), two.cpuFor(1, 2)));
        }
        assertThrows(IndexOutOfBoundsException.class, () -> config.cpuFor(3, 0));
        assertThrows(IndexOutOfBoundsException.class, () -> config.cpuFor(0, 2));
        assertThrows(IllegalStateException.class, () -> ClusterConfig.builder().memberCount(1).build().cpuFor(0, 0));
    }

    @Test
    void dataDirIsMadeAbsolute() {
        Path dir = withProperty("farm.data.dir", "relative/dir").dataDir();
        assertTrue(dir.isAbsolute());
        assertEquals(Path.of("relative/dir").toAbsolutePath(), dir);
        rejected(() -> withProperty("farm.data.dir", " "), "farm.data.dir = ''", "directory path");
        rejected(() -> withProperty("farm.data.dir", "a\0b"), "farm.data.dir", "directory path");
    }

    @Test
    void theDefaultDataDirFallsBackToTheTempDirAndSaysSo(@TempDir Path tmp) {
        List<String> notes = new ArrayList<>();
        Path shm = tmp.resolve("shm");
        Path fallback = ClusterConfig.defaultDataDir("c1", shm, tmp.resolve("t"), notes::add);
        assertTrue(fallback.startsWith(tmp.resolve("t")), fallback.toString());
        assertTrue(fallback.endsWith("c1"));
        assertEquals(1, notes.size());
        assertTrue(notes.getFirst().contains(shm + " does not exist") && notes.getFirst().contains("farm.data.dir"),
            notes.getFirst());

        notes.clear();
        shm.toFile().mkdirs();
        Path inShm = ClusterConfig.defaultDataDir("c1", shm, tmp.resolve("t"), notes::add);
        assertTrue(inShm.startsWith(shm), inShm.toString());
        assertTrue(notes.isEmpty());
    }

    @Test
    void unknownFarmKeysAreRejectedAndOtherKeysIgnored() {
        rejected(() -> withProperty("farm.thread", "4"), "unknown key farm.thread", "farm.threads", "farm.member.<id>.name");
        rejected(() -> withProperty("farm.member.0", "x"), "unknown key farm.member.0");
        assertEquals(2, withProperty("java.version", "whatever").threads());
    }

    @Test
    void everySettingSurvivesARoundTripThroughProperties() {
        ClusterConfig config = ClusterConfig.builder()
            .name("round-trip").members("alpha", "beta", "gamma", "delta")
            .fabric(FabricKind.SHM).regionSize(1 << 20).threads(3).backups(1).rings(7)
            .dataDir(Path.of("/tmp/farm-round-trip")).messageRingCapacity(8192).logRingCapacity(1 << 16)
            .idleStrategy("sleep").cpus(0).build();
        Properties properties = config.toProperties();
        assertEquals("1048576", properties.getProperty("farm.region.size"));
        assertEquals("beta", properties.getProperty("farm.member.1.name"));
        assertEquals(config, ClusterConfig.fromProperties(properties));
        assertEquals(config.hashCode(), ClusterConfig.fromProperties(properties).hashCode());
        ClusterConfig defaults = ClusterConfig.builder().memberCount(1).build();
        assertEquals(defaults, ClusterConfig.fromProperties(defaults.toProperties()));
    }

    @Test
    void storeAndLoadRoundTripThroughAFile(@TempDir Path tmp) {
        ClusterConfig config = ClusterConfig.builder().name("filed").memberCount(3).fabric("shm").build();
        Path file = tmp.resolve("cluster.properties");
        config.store(file);
        assertEquals(config, ClusterConfig.load(file));
    }

    @Test
    void loadNamesTheFileOfABadConfiguration(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("bad.properties");
        Files.writeString(file, "farm.member.0.name=a\nfarm.threads=0\n");
        rejected(() -> ClusterConfig.load(file), file.toString(), "farm.threads = 0");
        assertThrows(UncheckedIOException.class, () -> ClusterConfig.load(tmp.resolve("missing.properties")));
    }
}
