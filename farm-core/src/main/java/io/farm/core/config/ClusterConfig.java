package io.farm.core.config;

import io.farm.core.addr.RegionId;
import io.farm.core.node.IdleStrategies;
import io.farm.core.placement.Member;
import io.farm.core.placement.PlacementRing;
import io.farm.core.region.RegionFiles;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The static configuration of a cluster (DESIGN §2): its members and how every node runs.
 * Immutable; made with a {@link Builder} or read from properties, and written back with
 * {@link #toProperties()} so that a launcher can hand it to node processes. Every invalid value
 * is an {@link IllegalArgumentException} naming the property key, the value and what is accepted.
 *
 * <table>
 *   <caption>Properties</caption>
 *   <tr><th>key</th><th>value</th><th>default</th></tr>
 *   <tr><td>{@value #CLUSTER_NAME}</td><td>letters, digits, {@code . _ -}; up to 64</td><td>{@value #DEFAULT_CLUSTER_NAME}</td></tr>
 *   <tr><td>{@code farm.member.<id>.name}</td><td>one per member, ids 0 .. N-1 contiguous, N &lt;= 65536; names as cluster names, unique</td><td>required</td></tr>
 *   <tr><td>{@value #FABRIC}</td><td>{@code local}, {@code shm}</td><td>{@code local}</td></tr>
 *   <tr><td>{@value #REGION_SIZE}</td><td>bytes, power of two 4 KiB .. 2 GiB; suffix k, m, g allowed</td><td>2g</td></tr>
 *   <tr><td>{@value #THREADS}</td><td>worker threads per node, 1 .. 64</td><td>{@value #DEFAULT_THREADS}</td></tr>
 *   <tr><td>{@value #BACKUPS}</td><td>backups per region f, 0 .. N-1; 0 is cache mode</td><td>2 when N &gt;= 3, else N-1</td></tr>
 *   <tr><td>{@value #RINGS}</td><td>virtual rings k, 1 .. 255</td><td>{@value #DEFAULT_RINGS}</td></tr>
 *   <tr><td>{@value #DATA_DIR}</td><td>the cluster's directory</td><td>/dev/shm/farm-&lt;user&gt;/&lt;cluster&gt;</td></tr>
 *   <tr><td>{@value #MESSAGE_RING_CAPACITY}</td><td>bytes, power of two 4 KiB .. 1 GiB</td><td>64k</td></tr>
 *   <tr><td>{@value #LOG_RING_CAPACITY}</td><td>bytes, power of two 4 KiB .. 1 GiB</td><td>64k</td></tr>
 *   <tr><td>{@value #IDLE_STRATEGY}</td><td>backoff, spin, yield, sleep</td><td>backoff</td></tr>
 *   <tr><td>{@value #HUGE_PAGES}</td><td>true, false: ask for huge pages for region files</td><td>false</td></tr>
 *   <tr><td>{@value #NODE_REGIONS}</td><td>data regions a node may be primary of, 1 .. 2^24; 0 for no limit</td><td>0</td></tr>
 *   <tr><td>{@value #CPUS}</td><td>cpus to pin workers to, e.g. {@code 0,1}; empty: no pinning</td><td>empty</td></tr>
 * </table>
 */
public final class ClusterConfig {
    /** Prefix of every key; other keys of a properties object are ignored. */
    public static final String PREFIX = "farm.";
    /** Key of the cluster name. */
    public static final String CLUSTER_NAME = "farm.cluster.name";
    /** Keys of member names are {@code farm.member.<id>.name}. */
    public static final String MEMBER_PREFIX = "farm.member.";
    /** Suffix of a member name key. */
    public static final String MEMBER_NAME_SUFFIX = ".name";
    /** Key of the fabric kind. */
    public static final String FABRIC = "farm.fabric";
    /** Key of the data region size. */
    public static final String REGION_SIZE = "farm.region.size";
    /** Key of the number of worker threads per node. */
    public static final String THREADS = "farm.threads";
    /** Key of the number of backups of each region. */
    public static final String BACKUPS = "farm.backups";
    /** Key of the number of virtual rings of the placement. */
    public static final String RINGS = "farm.rings";
    /** Key of the cluster's data directory. */
    public static final String DATA_DIR = "farm.data.dir";
    /** Key of the capacity of each message ring. */
    public static final String MESSAGE_RING_CAPACITY = "farm.message.ring.capacity";
    /** Key of the capacity of each log ring. */
    public static final String LOG_RING_CAPACITY = "farm.log.ring.capacity";
    /** Key of the workers' idle strategy. */
    public static final String IDLE_STRATEGY = "farm.idle.strategy";
    /** Key of whether region files ask for huge pages. */
    public static final String HUGE_PAGES = "farm.huge.pages";
    /** Key of the most data regions a node may be the primary of (its memory for objects); 0 is no limit. */
    public static final String NODE_REGIONS = "farm.node.regions";
    /** Key of the cpus workers are pinned to. */
    public static final String CPUS = "farm.cpus";

    /** Default cluster name. */
    public static final String DEFAULT_CLUSTER_NAME = "farm";
    /** Default data region size: 2 GiB. */
    public static final long DEFAULT_REGION_SIZE = RegionFiles.MAX_REGION_SIZE;
    /** Default worker threads per node: the machines here have 2 cores. */
    public static final int DEFAULT_THREADS = 2;
    /** Most worker threads per node. */
    public static final int MAX_THREADS = 64;
    /** Backups per region when the cluster has at least 3 members. */
    public static final int DEFAULT_BACKUPS = 2;
    /** Default number of virtual rings (FaRM's k). */
    public static final int DEFAULT_RINGS = 100;
    /** Most members: node ids must fit a system region id. */
    public static final int MAX_MEMBERS = RegionId.MAX_NODE + 1;
    /** Smallest message or log ring capacity. */
    public static final int MIN_RING_CAPACITY = 4096;
    /** Largest message or log ring capacity. */
    public static final int MAX_RING_CAPACITY = 1 << 30;
    /** Default message and log ring capacity: 64 KiB. */
    public static final int DEFAULT_RING_CAPACITY = 64 * 1024;

    private static final List<String> KEYS = List.of(CLUSTER_NAME, MEMBER_PREFIX + "<id>" + MEMBER_NAME_SUFFIX, FABRIC,
        REGION_SIZE, THREADS, BACKUPS, RINGS, DATA_DIR, MESSAGE_RING_CAPACITY, LOG_RING_CAPACITY, IDLE_STRATEGY, HUGE_PAGES, NODE_REGIONS, CPUS);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final String NAME_RULE = "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit";
    private static final Path SHM = Path.of("/dev/shm");

    private final String name;
    private final List<Member> members;
    private final FabricKind fabric;
    private final long regionSize;
    private final int threads;
    private final int backups;
    private final int rings;
    private final Path dataDir;
    private final int messageRingCapacity;
    private final int logRingCapacity;
    private final String idleStrategy;
    private final boolean hugePages;
    private final int nodeRegions;
    private final int[] cpus;
    /** Built on first use: a large member set makes a ring of k points per member. */
    private volatile PlacementRing placement;

    private ClusterConfig(Builder builder, List<Member> members, int backups, Path dataDir) {
        this.name = builder.name;
        this.members = members;
        this.fabric = builder.fabric;
        this.regionSize = builder.regionSize;
        this.threads = builder.threads;
        this.backups = backups;
        this.rings = builder.rings;
        this.dataDir = dataDir;
        this.messageRingCapacity = builder.messageRingCapacity;
        this.logRingCapacity = builder.logRingCapacity;
        this.idleStrategy = builder.idleStrategy;
        this.hugePages = builder.hugePages;
        this.nodeRegions = builder.nodeRegions;
        this.cpus = builder.cpus.clone();
    }

    /** Where data regions live: the placement ring of these members with k rings and f + 1 replicas. */
    public PlacementRing placement() {
        PlacementRing ring = placement;
        if (ring == null) {
            // Benign race: every thread builds an equal, immutable ring.
            ring = PlacementRing.of(members, rings, backups + 1);
            placement = ring;
        }
        return ring;
    }

    /** A builder with every default set and no members. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The configuration described by the {@code farm.*} keys of {@code properties}; other keys
     * are ignored. Values are trimmed.
     *
     * @throws IllegalArgumentException for an unknown {@code farm.*} key, a missing or
     *                                  non-contiguous member, or an invalid value
     */
    public static ClusterConfig fromProperties(Properties properties) {
        Builder builder = builder();
        TreeMap<Integer, String> memberNames = new TreeMap<>();
        for (String key : new TreeSet<>(properties.stringPropertyNames())) {
            if (!key.startsWith(PREFIX)) {
                continue;
            }
            String value = properties.getProperty(key).trim();
            switch (key) {
                case CLUSTER_NAME -> builder.name(value);
                case FABRIC -> builder.fabric(value);
                case REGION_SIZE -> builder.regionSize(parseSize(key, value));
                case THREADS -> builder.threads(parseInt(key, value));
                case BACKUPS -> builder.backups(parseInt(key, value));
                case RINGS -> builder.rings(parseInt(key, value));
                case DATA_DIR -> builder.dataDir(parsePath(key, value));
                case MESSAGE_RING_CAPACITY -> builder.messageRingCapacity(parseRingCapacity(key, value));
                case LOG_RING_CAPACITY -> builder.logRingCapacity(parseRingCapacity(key, value));
                case IDLE_STRATEGY -> builder.idleStrategy(value);
                case HUGE_PAGES -> builder.hugePages(parseBoolean(key, value));
                case NODE_REGIONS -> builder.nodeRegions(parseInt(key, value));
                case CPUS -> builder.cpus(parseCpus(key, value));
                default -> memberNames.put(memberId(key), value);
            }
        }
        int expected = 0;
        for (var member : memberNames.entrySet()) {
            if (member.getKey() != expected) {
                throw new IllegalArgumentException(memberKey(expected) + " is missing: member ids must be contiguous from 0, and "
                    + memberKey(member.getKey()) + " is set");
            }
            builder.member(member.getValue());
            expected++;
        }
        return builder.build();
    }

    /**
     * Reads the configuration from a {@code .properties} file (UTF-8).
     *
     * @throws UncheckedIOException     if the file cannot be read
     * @throws IllegalArgumentException as {@link #fromProperties}, with the file named
     */
    public static ClusterConfig load(Path file) {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read cluster configuration " + file, e);
        }
        try {
            return fromProperties(properties);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("cluster configuration " + file + ": " + e.getMessage(), e);
        }
    }

    /** Every setting as {@code farm.*} properties, defaults included; {@link #fromProperties} reads them back. */
    public Properties toProperties() {
        Properties properties = new Properties();
        properties.setProperty(CLUSTER_NAME, name);
        for (Member member : members) {
            properties.setProperty(memberKey(member.nodeId()), member.name());
        }
        properties.setProperty(FABRIC, fabric.id());
        properties.setProperty(REGION_SIZE, Long.toString(regionSize));
        properties.setProperty(THREADS, Integer.toString(threads));
        properties.setProperty(BACKUPS, Integer.toString(backups));
        properties.setProperty(RINGS, Integer.toString(rings));
        properties.setProperty(DATA_DIR, dataDir.toString());
        properties.setProperty(MESSAGE_RING_CAPACITY, Integer.toString(messageRingCapacity));
        properties.setProperty(LOG_RING_CAPACITY, Integer.toString(logRingCapacity));
        properties.setProperty(IDLE_STRATEGY, idleStrategy);
        properties.setProperty(HUGE_PAGES, Boolean.toString(hugePages));
        properties.setProperty(NODE_REGIONS, Integer.toString(nodeRegions));
        properties.setProperty(CPUS, Arrays.stream(cpus).mapToObj(Integer::toString).collect(Collectors.joining(",")));
        return properties;
    }

    /**
     * Writes {@link #toProperties()} to {@code file} (UTF-8), creating or replacing it and
     * creating its directory if needed.
     *
     * @throws UncheckedIOException if the file cannot be written
     */
    public void store(Path file) {
        try {
            Path dir = file.toAbsolutePath().getParent();
            if (dir != null) {
                Files.createDirectories(dir);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the directory of cluster configuration " + file, e);
        }
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            toProperties().store(writer, "farm cluster " + name);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write cluster configuration " + file, e);
        }
    }

    /** The cluster's name. */
    public String name() {
        return name;
    }

    /** The members, in node id order (member {@code i} has id {@code i}). */
    public List<Member> members() {
        return members;
    }

    /** Number of members, N. */
    public int size() {
        return members.size();
    }

    /**
     * The member with node id {@code id}.
     *
     * @throws IndexOutOfBoundsException unless 0 .. N-1
     */
    public Member member(int id) {
        return members.get(Objects.checkIndex(id, members.size()));
    }

    /** The fabric nodes use. */
    public FabricKind fabric() {
        return fabric;
    }

    /** Size of data regions in bytes, a power of two. */
    public long regionSize() {
        return regionSize;
    }

    /** Worker threads per node, T. */
    public int threads() {
        return threads;
    }

    /** Backups of each region, f (0 .. N-1). */
    public int backups() {
        return backups;
    }

    /** Copies of each region: the primary and its backups, f + 1. */
    public int replicas() {
        return backups + 1;
    }

    /** Whether regions have no backups (f = 0): FaRM's cache mode, data lost with its machine. */
    public boolean cacheMode() {
        return backups == 0;
    }

    /** Virtual rings of the placement, k. */
    public int rings() {
        return rings;
    }

    /** The cluster's data directory (absolute), holding one directory per node. */
    public Path dataDir() {
        return dataDir;
    }

    /** Capacity of each message ring in bytes, a power of two. */
    public int messageRingCapacity() {
        return messageRingCapacity;
    }

    /** Capacity of each log ring in bytes, a power of two. */
    public int logRingCapacity() {
        return logRingCapacity;
    }

    /** Name of the workers' idle strategy, one of {@link IdleStrategies#NAMES}. */
    public String idleStrategy() {
        return idleStrategy;
    }

    /**
     * Whether region files ask for huge pages; where the kernel does not give them, regions use
     * normal pages and one message says why (see {@link io.farm.core.region.RegionFiles}).
     */
    public boolean hugePages() {
        return hugePages;
    }

    /** The most data regions a node may be the primary of; 0 for no limit. */
    public int nodeRegions() {
        return nodeRegions;
    }

    /** The cpus workers are pinned to; empty when workers are not pinned. */
    public int[] cpus() {
        return cpus.clone();
    }

    /** Whether workers are pinned to cpus. */
    public boolean pinsThreads() {
        return cpus.length > 0;
    }

    /**
     * The cpu of worker {@code worker} of node {@code node}: the cpu list is dealt out to the
     * workers of all nodes in turn, {@code cpus[(node * T + worker) % cpus.length]}, so that the
     * nodes sharing a host spread over the listed cpus.
     *
     * @throws IllegalStateException     if workers are not pinned
     * @throws IndexOutOfBoundsException if node or worker is out of range
     */
    public int cpuFor(int node, int worker) {
        if (!pinsThreads()) {
            throw new IllegalStateException("cluster " + name + " pins no threads: " + CPUS + " is empty");
        }
        Objects.checkIndex(node, members.size());
        Objects.checkIndex(worker, threads);
        return cpus[(node * threads + worker) % cpus.length];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClusterConfig c && name.equals(c.name) && members.equals(c.members) && fabric == c.fabric
            && regionSize == c.regionSize && threads == c.threads && backups == c.backups && rings == c.rings
            && dataDir.equals(c.dataDir) && messageRingCapacity == c.messageRingCapacity
            && logRingCapacity == c.logRingCapacity && idleStrategy.equals(c.idleStrategy) && hugePages == c.hugePages && nodeRegions == c.nodeRegions
            && Arrays.equals(cpus, c.cpus);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, members, fabric, regionSize, threads, backups, rings, dataDir, messageRingCapacity,
            logRingCapacity, idleStrategy, hugePages, nodeRegions, Arrays.hashCode(cpus));
    }

    @Override
    public String toString() {
        return "ClusterConfig[" + name + ", members=" + members + ", fabric=" + fabric.id() + ", regionSize=" + regionSize
            + ", threads=" + threads + ", backups=" + backups + ", rings=" + rings + ", dataDir=" + dataDir
            + ", messageRingCapacity=" + messageRingCapacity + ", logRingCapacity=" + logRingCapacity
            + ", idleStrategy=" + idleStrategy + ", hugePages=" + hugePages + ", nodeRegions=" + nodeRegions + ", cpus=" + Arrays.toString(cpus) + "]";
    }

    /** The key of member {@code id}'s name. */
    public static String memberKey(int id) {
        return MEMBER_PREFIX + id + MEMBER_NAME_SUFFIX;
    }

    /**
     * The default data directory of cluster {@code clusterName}: {@code /dev/shm/farm-<user>/<cluster>},
     * or the same under {@code java.io.tmpdir} when {@code /dev/shm} does not exist, which is
     * then said on {@code System.err}.
     */
    public static Path defaultDataDir(String clusterName) {
        return defaultDataDir(clusterName, SHM, Path.of(System.getProperty("java.io.tmpdir")),
            note -> System.err.println("farm: " + note));
    }

    static Path defaultDataDir(String clusterName, Path shm, Path tmpDir, Consumer<String> notes) {
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
        Path relative = Path.of("farm-" + user, clusterName);
        if (Files.isDirectory(shm)) {
            return shm.resolve(relative).toAbsolutePath();
        }
        Path fallback = tmpDir.resolve(relative).toAbsolutePath();
        notes.accept(shm + " does not exist: the data directory of cluster " + clusterName + " defaults to " + fallback
            + " under java.io.tmpdir, which may be a disk rather than memory; set " + DATA_DIR + " to choose");
        return fallback;
    }

    /** Prefixes a delegated check's message, which names the value and what is accepted, with the key. */
    private static IllegalArgumentException keyed(String key, IllegalArgumentException e) {
        return new IllegalArgumentException(key + ": " + e.getMessage(), e);
    }

    private static IllegalArgumentException invalid(String key, Object value, String accepted) {
        String shown = value instanceof String s ? "'" + s + "'" : String.valueOf(value);
        return new IllegalArgumentException(key + " = " + shown + " is not accepted: " + accepted);
    }

    private static int memberId(String key) {
        if (!key.startsWith(MEMBER_PREFIX) || !key.endsWith(MEMBER_NAME_SUFFIX)
            || key.length() <= MEMBER_PREFIX.length() + MEMBER_NAME_SUFFIX.length()) {
            throw new IllegalArgumentException("unknown key " + key + ": accepted keys are " + String.join(", ", KEYS));
        }
        String id = key.substring(MEMBER_PREFIX.length(), key.length() - MEMBER_NAME_SUFFIX.length());
        try {
            int parsed = Integer.parseInt(id);
            if (parsed >= 0 && parsed < MAX_MEMBERS && id.equals(Integer.toString(parsed))) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("key " + key + " is not accepted: the member id '" + id
            + "' must be a decimal integer 0.." + (MAX_MEMBERS - 1));
    }

    private static int parseInt(String key, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw invalid(key, value, "expected a decimal integer");
        }
    }

    private static boolean parseBoolean(String key, String value) {
        return switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw invalid(key, value, "expected true or false");
        };
    }

    private static int parseRingCapacity(String key, String value) {
        long size = parseSize(key, value);
        if (size > MAX_RING_CAPACITY) {
            throw invalid(key, value, ringCapacityRule());
        }
        return (int) size;
    }

    /** A byte count: digits with an optional binary suffix k, m or g (either case). */
    private static long parseSize(String key, String value) {
        String rule = "expected a number of bytes, optionally with a suffix k, m or g (1k = 1024)";
        if (value.isEmpty()) {
            throw invalid(key, value, rule);
        }
        int shift = switch (Character.toLowerCase(value.charAt(value.length() - 1))) {
            case 'k' -> 10;
            case 'm' -> 20;
            case 'g' -> 30;
            default -> 0;
        };
        String digits = shift == 0 ? value : value.substring(0, value.length() - 1);
        if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw invalid(key, value, rule);
        }
        try {
            long number = Long.parseLong(digits);
            if (number > Long.MAX_VALUE >> shift) {
                throw invalid(key, value, "too large");
            }
            return number << shift;
        } catch (NumberFormatException e) {
            throw invalid(key, value, "too large");
        }
    }

    private static Path parsePath(String key, String value) {
        if (value.isEmpty()) {
            throw invalid(key, value, "expected a directory path");
        }
        try {
            return Path.of(value);
        } catch (InvalidPathException e) {
            throw invalid(key, value, "expected a directory path (" + e.getReason() + ")");
        }
    }

    private static int[] parseCpus(String key, String value) {
        if (value.isEmpty()) {
            return new int[0];
        }
        String[] parts = value.split(",", -1);
        int[] cpus = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                cpus[i] = Integer.parseInt(parts[i].trim());
            } catch (NumberFormatException e) {
                throw invalid(key, value, "expected a comma-separated list of cpu numbers, e.g. 0,1 (empty: no pinning)");
            }
        }
        return cpus;
    }

    private static String ringCapacityRule() {
        return "a ring capacity must be a power of two from " + MIN_RING_CAPACITY + " (4 KiB) to " + MAX_RING_CAPACITY
            + " (1 GiB)";
    }

    /**
     * Builds a {@link ClusterConfig}. Each setter checks its value at once (naming the property
     * key in its exception and leaving the builder unchanged); {@link #build()} checks what
     * depends on several values.
     */
    public static final class Builder {
        private String name = DEFAULT_CLUSTER_NAME;
        private final List<String> memberNames = new ArrayList<>();
        private final Map<String, Integer> memberIds = new HashMap<>();
        private FabricKind fabric = FabricKind.LOCAL;
        private long regionSize = DEFAULT_REGION_SIZE;
        private int threads = DEFAULT_THREADS;
        private int backups = -1;
        private int rings = DEFAULT_RINGS;
        private Path dataDir;
        private int messageRingCapacity = DEFAULT_RING_CAPACITY;
        private int logRingCapacity = DEFAULT_RING_CAPACITY;
        private String idleStrategy = IdleStrategies.DEFAULT;
        private boolean hugePages;
        private int nodeRegions;
        private int[] cpus = new int[0];

        private Builder() {
        }

        /** The cluster name ({@value #CLUSTER_NAME}). */
        public Builder name(String name) {
            if (name == null || !NAME.matcher(name).matches()) {
                throw invalid(CLUSTER_NAME, name, NAME_RULE);
            }
            this.name = name;
            return this;
        }

        /** Adds a member; its node id is the number of members added before it. */
        public Builder member(String memberName) {
            int id = memberNames.size();
            String key = memberKey(id);
            if (id >= MAX_MEMBERS) {
                throw invalid(key, memberName, "a cluster has at most " + MAX_MEMBERS + " members (node ids 0.."
                    + RegionId.MAX_NODE + ")");
            }
            if (memberName == null || !NAME.matcher(memberName).matches()) {
                throw invalid(key, memberName, NAME_RULE);
            }
            Integer same = memberIds.get(memberName);
            if (same != null) {
                throw invalid(key, memberName, "member " + same + " has that name already; names must be unique");
            }
            memberNames.add(memberName);
            memberIds.put(memberName, id);
            return this;
        }

        /** Replaces the members by {@code names}, with node ids 0 .. names.length-1. */
        public Builder members(String... names) {
            List<String> previous = List.copyOf(memberNames);
            clearMembers();
            try {
                for (String memberName : names) {
                    member(memberName);
                }
            } catch (IllegalArgumentException e) {
                clearMembers();
                previous.forEach(this::member);
                throw e;
            }
            return this;
        }

        private void clearMembers() {
            memberNames.clear();
            memberIds.clear();
        }

        /**
         * Replaces the members by {@code count} members named {@code node0 .. node<count-1>}.
         *
         * @throws IllegalArgumentException unless 1 .. {@value #MAX_MEMBERS}
         */
        public Builder memberCount(int count) {
            if (count < 1 || count > MAX_MEMBERS) {
                throw invalid(MEMBER_PREFIX + "*", count, "a cluster has 1.." + MAX_MEMBERS + " members");
            }
            String[] names = new String[count];
            for (int i = 0; i < count; i++) {
                names[i] = "node" + i;
            }
            return members(names);
        }

        /** The fabric ({@value #FABRIC}). */
        public Builder fabric(FabricKind fabric) {
            this.fabric = Objects.requireNonNull(fabric, "fabric");
            return this;
        }

        /** The fabric by name ({@value #FABRIC}): {@code local} or {@code shm}. */
        public Builder fabric(String id) {
            try {
                return fabric(FabricKind.of(id));
            } catch (IllegalArgumentException e) {
                throw keyed(FABRIC, e);
            }
        }

        /** The data region size in bytes ({@value #REGION_SIZE}), see {@link RegionFiles#checkRegionSize}. */
        public Builder regionSize(long bytes) {
            try {
                this.regionSize = RegionFiles.checkRegionSize(bytes);
            } catch (IllegalArgumentException e) {
                throw keyed(REGION_SIZE, e);
            }
            return this;
        }

        /** Worker threads per node ({@value #THREADS}), 1 .. {@value #MAX_THREADS}. */
        public Builder threads(int threads) {
            if (threads < 1 || threads > MAX_THREADS) {
                throw invalid(THREADS, threads, "worker threads per node must be 1.." + MAX_THREADS);
            }
            this.threads = threads;
            return this;
        }

        /**
         * Backups of each region ({@value #BACKUPS}), 0 .. N-1; 0 is cache mode. The upper bound
         * is checked by {@link #build()}.
         */
        public Builder backups(int backups) {
            if (backups < 0) {
                throw invalid(BACKUPS, backups, backupsRule());
            }
            this.backups = backups;
            return this;
        }

        /** Virtual rings of the placement ({@value #RINGS}), 1 .. {@value RegionId#MAX_RINGS}. */
        public Builder rings(int rings) {
            if (rings < 1 || rings > RegionId.MAX_RINGS) {
                throw invalid(RINGS, rings, "virtual rings must be 1.." + RegionId.MAX_RINGS);
            }
            this.rings = rings;
            return this;
        }

        /** The cluster's data directory ({@value #DATA_DIR}); made absolute by {@link #build()}. */
        public Builder dataDir(Path dir) {
            this.dataDir = Objects.requireNonNull(dir, "dir");
            return this;
        }

        /** Capacity of each message ring ({@value #MESSAGE_RING_CAPACITY}). */
        public Builder messageRingCapacity(int bytes) {
            this.messageRingCapacity = checkRingCapacity(MESSAGE_RING_CAPACITY, bytes);
            return this;
        }

        /** Capacity of each log ring ({@value #LOG_RING_CAPACITY}). */
        public Builder logRingCapacity(int bytes) {
            this.logRingCapacity = checkRingCapacity(LOG_RING_CAPACITY, bytes);
            return this;
        }

        /** The workers' idle strategy ({@value #IDLE_STRATEGY}), one of {@link IdleStrategies#NAMES}. */
        public Builder idleStrategy(String strategy) {
            try {
                this.idleStrategy = IdleStrategies.check(strategy);
            } catch (IllegalArgumentException e) {
                throw keyed(IDLE_STRATEGY, e);
            }
            return this;
        }

        /** Whether region files ask for huge pages ({@value #HUGE_PAGES}); default false. */
        public Builder hugePages(boolean hugePages) {
            this.hugePages = hugePages;
            return this;
        }

        /**
         * The most data regions a node may be the primary of ({@value #NODE_REGIONS}), 1 ..
         * 2^24, or 0 (the default) for no limit: with a limit, a node's memory for objects is
         * {@code nodeRegions x regionSize} and an allocation beyond it fails saying so.
         */
        public Builder nodeRegions(int regions) {
            if (regions < 0 || regions > 1 << 24) {
                throw invalid(NODE_REGIONS, regions, "data regions per node must be 0 (no limit) .. " + (1 << 24));
            }
            this.nodeRegions = regions;
            return this;
        }

        /**
         * The cpus to pin workers to ({@value #CPUS}); none for no pinning. Each must be below
         * the number of available processors, and listed once.
         */
        public Builder cpus(int... cpus) {
            int available = Runtime.getRuntime().availableProcessors();
            Set<Integer> seen = new HashSet<>();
            String shown = Arrays.stream(cpus).mapToObj(Integer::toString).collect(Collectors.joining(","));
            for (int cpu : cpus) {
                if (cpu < 0 || cpu >= available) {
                    throw invalid(CPUS, shown, "cpu " + cpu + " does not exist: this machine has cpus 0.." + (available - 1));
                }
                if (!seen.add(cpu)) {
                    throw invalid(CPUS, shown, "cpu " + cpu + " is listed twice");
                }
            }
            this.cpus = cpus.clone();
            return this;
        }

        /**
         * Checks what depends on several values and builds the configuration. Unset backups
         * default to 2 when N &gt;= 3, else N - 1; an unset data directory to
         * {@link ClusterConfig#defaultDataDir(String)}.
         *
         * @throws IllegalArgumentException if there are no members or the backups exceed N - 1
         */
        public ClusterConfig build() {
            int size = memberNames.size();
            if (size == 0) {
                throw new IllegalArgumentException(memberKey(0) + " is missing: a cluster needs at least one member ("
                    + MEMBER_PREFIX + "<id>" + MEMBER_NAME_SUFFIX + " = <name>, ids 0..N-1)");
            }
            int f = backups >= 0 ? backups : Math.min(DEFAULT_BACKUPS, size - 1);
            if (f > size - 1) {
                throw invalid(BACKUPS, f, backupsRule() + "; this cluster has " + size + " member" + (size == 1 ? "" : "s")
                    + ", so 0.." + (size - 1));
            }
            List<Member> members = new ArrayList<>(size);
            for (int id = 0; id < size; id++) {
                members.add(new Member(id, memberNames.get(id)));
            }
            Path dir = (dataDir != null ? dataDir : defaultDataDir(name)).toAbsolutePath().normalize();
            return new ClusterConfig(this, List.copyOf(members), f, dir);
        }

        private static String backupsRule() {
            return "backups per region must be 0..N-1 for N members (0 = cache mode, no replication)";
        }

        private static int checkRingCapacity(String key, int bytes) {
            if (bytes < MIN_RING_CAPACITY || bytes > MAX_RING_CAPACITY || Integer.bitCount(bytes) != 1) {
                throw invalid(key, bytes, ringCapacityRule());
            }
            return bytes;
        }
    }
}
