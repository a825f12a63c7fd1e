package io.farm.hashtable;

import io.farm.core.Farm;
import io.farm.core.addr.GlobalAddress;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.node.Blocking;
import io.farm.core.placement.Member;
import io.farm.core.rpc.RpcReply;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * The hashtables of one node: their catalog, the creation of new ones and the serving of
 * mutations shipped here. Attach one to every member ({@link #attach}) before any creates a table.
 *
 * <p><b>Creation</b> ({@link #create}): each shard, an array of {@code bucketsPerShard + 1}
 * buckets in one allocation, is made on the node that consistent hashing (rendezvous hashing of
 * the table name and shard number over the members) picks, by an RPC to it
 * ({@link HashTableMessages#CREATE_SHARD}); its buckets' overflow blocks and out-of-line values
 * are later allocated next to it, so mutations are single-machine transactions. The shard
 * addresses then go to every member's catalog ({@link HashTableMessages#REGISTER}, FaRM:
 * "machines ... exchange pointers to the shards").
 */
public final class HashTables {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final Duration CREATE_TIMEOUT = Duration.ofSeconds(60);

    private final Farm farm;
    private final Map<String, HashTable> catalog = new ConcurrentHashMap<>();
    private final Map<String, long[]> registering = new ConcurrentHashMap<>();
    private final Combiner[] combiners;
    private final AtomicLong combined = new AtomicLong();
    private final Map<Integer, ValueMerge> merges = new ConcurrentHashMap<>();

    private HashTables(Farm farm) {
        this.farm = farm;
        this.combiners = new Combiner[farm.node().config().threads()];
        for (int w = 0; w < combiners.length; w++) {
            combiners[w] = new Combiner(farm.node().worker(w), farm.transactions(), combined);
        }
    }

    /**
     * Attaches hashtables to the node of {@code farm}: registers the RPC methods of table creation
     * and the shipped mutation handler.
     *
     * @throws IllegalStateException if the node has them attached already
     */
    public static HashTables attach(Farm farm) {
        HashTables tables = new HashTables(farm);
        farm.rpc().register(HashTableMessages.CREATE_SHARD, "hashtable create shard", tables::createShard);
        farm.rpc().register(HashTableMessages.REGISTER, "hashtable register", tables::register);
        farm.shipping().msgRegisterHandler(HashTableMessages.MUTATE, (worker, sender, address, message, offset, length) -> {
            HashTableMessages.Mutation mutation = HashTableMessages.Mutation.decode(
                message.asSlice(offset, length).asByteBuffer());
            return tables.tableOfBucket(address).serve(worker, mutation);
        });
        farm.shipping().msgRegisterHandler(HashTableMessages.LOOKUP, (worker, sender, address, message, offset, length) -> {
            byte[] key = message.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
            return tables.tableOfBucket(address).get(worker, key).thenApply(value -> {
                if (value == null) {
                    return new byte[] {0};
                }
                byte[] answer = new byte[value.length + 1];
                answer[0] = 1;
                System.arraycopy(value, 0, answer, 1, value.length);
                return answer;
            });
        });
        return tables;
    }

    /**
     * Registers {@code merge} under {@code id} on this node, for {@link HashTable#merge} calls
     * whose keys' shards this node holds: register it on every node that may hold shards, before
     * the first such call (a call reaching a node without it fails and changes nothing).
     *
     * @throws IllegalArgumentException if the id is not {@value HashTableMessages#MIN_MERGE_ID}..{@value HashTableMessages#MAX_MERGE_ID}
     * @throws IllegalStateException    if a merge is registered under the id already
     */
    public void registerMerge(int id, ValueMerge merge) {
        HashTableMessages.checkMergeId(id);
        Objects.requireNonNull(merge, "merge");
        if (merges.putIfAbsent(id, merge) != null) {
            throw new IllegalStateException("a merge is registered under id " + id + " on node " + farm.node().id()
                + " already: one merge per id");
        }
    }

    /**
     * The merge registered under {@code id}.
     *
     * @throws IllegalStateException if none is
     */
    ValueMerge merge(int id) {
        ValueMerge merge = merges.get(id);
        if (merge == null) {
            throw new IllegalStateException("no merge is registered under id " + id + " on node " + farm.node().id()
                + ", the primary of the key's shard: register it with HashTables.registerMerge on every node that "
                + "holds shards before merging");
        }
        return merge;
    }

    /** Attaches hashtables to each of {@code farms}; returns them by position. */
    public static List<HashTables> attachAll(List<Farm> farms) {
        return farms.stream().map(HashTables::attach).toList();
    }

    /**
     * Creates table {@code name} of shape {@code config} across the cluster; the stage completes,
     * on {@code worker}, once every member knows it.
     *
     * @throws IllegalArgumentException if the name is not 1..64 letters, digits, {@code . _ -}, a
     *                                  table of that name exists, or a shard does not fit one allocation
     */
    public CompletionStage<HashTable> create(NodeWorker worker, String name, HashTableConfig config) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("table name " + name + " not accepted: 1..64 letters, digits, '.', '_', '-',"
                + " starting with a letter or digit");
        }
        if (catalog.containsKey(name)) {
            throw new IllegalArgumentException("a table named " + name + " exists already");
        }
        new HashTableLayout(config);
        byte[] descriptor = new HashTableMessages.Descriptor(name, config).encode();
        List<CompletableFuture<Long>> shards = new ArrayList<>();
        for (int s = 0; s < config.shards(); s++) {
            byte[] request = ByteBuffer.allocate(descriptor.length + Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN)
                .put(descriptor).putInt(s).array();
            shards.add(farm.rpc().call(worker, shardNode(name, s), HashTableMessages.CREATE_SHARD,
                MemorySegment.ofArray(request), 0, request.length, CREATE_TIMEOUT,
                (result, offset, length) -> {
                    if (length != Long.BYTES) {
                        throw new IllegalArgumentException("a shard address is 8 bytes, not " + length);
                    }
                    return result.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), offset);
                }).toCompletableFuture());
        }
        return CompletableFuture.allOf(shards.toArray(CompletableFuture[]::new)).thenCompose(ignored -> {
            long[] addresses = shards.stream().mapToLong(CompletableFuture::join).toArray();
            return registerEverywhere(worker, descriptor, addresses);
        }).thenApply(ignored -> open(name));
    }

    /** The blocking facade of {@link #create}, on worker 0. */
    public HashTable createBlocking(String name, HashTableConfig config) {
        Blocking.requireOffWorker("createBlocking");
        return Blocking.await(farm.node().submit(0, worker -> create(worker, name, config)));
    }

    private CompletionStage<Void> registerEverywhere(NodeWorker worker, byte[] descriptor, long[] addresses) {
        int perCall = (farm.rpc().maxBodyLength() - descriptor.length - 2 * Integer.BYTES) / Long.BYTES;
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (Member member : farm.node().config().members()) {
            for (int first = 0; first < addresses.length; first += perCall) {
                int count = Math.min(perCall, addresses.length - first);
                ByteBuffer request = ByteBuffer.allocate(descriptor.length + 2 * Integer.BYTES + count * Long.BYTES)
                    .order(ByteOrder.LITTLE_ENDIAN).put(descriptor).putInt(first).putInt(count);
                for (int i = 0; i < count; i++) {
                    request.putLong(addresses[first + i]);
                }
                byte[] bytes = request.array();
                calls.add(farm.rpc().call(worker, member.nodeId(), HashTableMessages.REGISTER, MemorySegment.ofArray(bytes), 0,
                    bytes.length, CREATE_TIMEOUT, (result, offset, length) -> (Void) null).toCompletableFuture());
            }
        }
        return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new));
    }

    /** The node that holds shard {@code shard} of table {@code name}: highest random weight over the members. */
    int shardNode(String name, int shard) {
        byte[] prefix = (name + '\u0000' + shard + '\u0000').getBytes(StandardCharsets.UTF_8);
        int best = -1;
        long bestWeight = 0;
        for (Member member : farm.node().config().members()) {
            byte[] key = ByteBuffer.allocate(prefix.length + Integer.BYTES).put(prefix).putInt(member.nodeId()).array();
            long weight = KeyHashing.hash(key);
            if (best < 0 || Long.compareUnsigned(weight, bestWeight) > 0) {
                best = member.nodeId();
                bestWeight = weight;
            }
        }
        return best;
    }

    /**
     * The table named {@code name}.
     *
     * @throws IllegalArgumentException if this node knows no such table (the message lists those it knows)
     */
    public HashTable open(String name) {
        HashTable table = catalog.get(name);
        if (table == null) {
            throw new IllegalArgumentException("no hashtable named " + name + " on node " + farm.node().id()
                + "; tables: " + new TreeSet<>(catalog.keySet()) + " (create one with HashTables.create)");
        }
        return table;
    }

    /** Mutations of a key that waited for and joined another's transaction (flat combining), on this node. */
    public long combinedMutations() {
        return combined.get();
    }

    Farm farm() {
        return farm;
    }

    Combiner combiner(NodeWorker worker) {
        return combiners[worker.index()];
    }

    private HashTable tableOfBucket(long address) {
        for (HashTable table : catalog.values()) {
            if (table.containsBucket(address)) {
                return table;
            }
        }
        throw new IllegalArgumentException("no hashtable of node " + farm.node().id() + " has a bucket at "
            + GlobalAddress.toString(address));
    }

    private void createShard(NodeWorker worker, int sender, MemorySegment arguments, long offset, int length,
                             RpcReply reply) {
        ByteBuffer request = arguments.asSlice(offset, length).asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        HashTableMessages.Descriptor descriptor = HashTableMessages.Descriptor.decode(request);
        if (request.remaining() != Integer.BYTES) {
            throw new IllegalArgumentException("malformed shard creation: " + request.remaining()
                + " bytes after the descriptor, expected 4 (the shard number)");
        }
        HashTableLayout layout = new HashTableLayout(descriptor.config());
        farm.transactions().allocateArray(worker, layout.bucketSize(), descriptor.config().bucketsPerShard() + 1, 0)
            .whenComplete((address, failure) -> {
                if (failure != null) {
                    reply.fail("shard of table " + descriptor.name() + " not created on node " + farm.node().id() + ": "
                        + failure);
                } else {
                    MemorySegment result = MemorySegment.ofArray(new byte[Long.BYTES]);
                    result.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0, address);
                    reply.ok(result, 0, Long.BYTES);
                }
            });
    }

    private void register(NodeWorker worker, int sender, MemorySegment arguments, long offset, int length,
                          RpcReply reply) {
        ByteBuffer request = arguments.asSlice(offset, length).asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        HashTableMessages.Descriptor descriptor = HashTableMessages.Descriptor.decode(request);
        int first = request.getInt();
        int count = request.getInt();
        int shards = descriptor.config().shards();
        if (first < 0 || count < 0 || first + count > shards || request.remaining() != count * Long.BYTES) {
            throw new IllegalArgumentException("malformed table registration: shards " + first + ".." + (first + count - 1)
                + " of " + shards + " with " + request.remaining() + " bytes of addresses");
        }
        long[] addresses = registering.computeIfAbsent(descriptor.name(), ignored -> new long[shards + 1]);
        synchronized (addresses) {
            for (int i = 0; i < count; i++) {
                addresses[first + i] = request.getLong();
            }
            addresses[shards] += count;
            if (addresses[shards] == shards) {
                registering.remove(descriptor.name());
                catalog.put(descriptor.name(), new HashTable(this, descriptor.name(), descriptor.config(),
                    Arrays.copyOf(addresses, shards)));
            }
        }
        reply.ok();
    }
}
