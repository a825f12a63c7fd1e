package io.farm.bench.txn;

import io.farm.core.Farm;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.rpc.RpcDecoder;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * The two RPC methods a node of {@code farm bench txn} other than the driver serves, in its
 * process or another: {@link #PRELOAD} its keys, and report its {@link #COUNTS}. The driver (node
 * 0) calls them from one of its workers.
 *
 * <pre>
 *  PRELOAD arguments            COUNTS arguments: none
 *   0           8       12      COUNTS answer: NodeCounts (its layout)
 *  +-----------+-------+
 *  | first key | count |        PRELOAD answer: empty, once the node's keys are committed and the
 *  +-----------+-------+        addresses stored in KeySpace.file(dataDir, node)
 * </pre>
 */
final class TxnBenchService {
    /** RPC method: allocate and commit this node's keys, store their addresses in the data directory. */
    static final int PRELOAD = 0x70;
    /** RPC method: this node's counts now. */
    static final int COUNTS = 0x71;
    /** How long the driver waits for a node's keys. */
    static final Duration PRELOAD_TIMEOUT = Duration.ofSeconds(300);
    /** How long the driver waits for counts. */
    static final Duration COUNTS_TIMEOUT = Duration.ofSeconds(30);

    private static final int PRELOAD_LENGTH = 12;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private TxnBenchService() {
    }

    /** Registers both methods on {@code farm}'s RPC layer; keys go to files in {@code dataDir}. */
    static void install(Farm farm, Path dataDir) {
        MemorySegment answers = Arena.ofAuto().allocate((long) NodeCounts.LENGTH * farm.node().config().threads(), Long.BYTES);
        farm.rpc().register(PRELOAD, "txn-bench-preload", (worker, sender, arguments, offset, length, reply) -> {
            if (length != PRELOAD_LENGTH) {
                throw new IllegalArgumentException("preload arguments of " + length + " bytes: expected " + PRELOAD_LENGTH);
            }
            long firstKey = arguments.get(LONG, offset);
            int count = arguments.get(INT, offset + Long.BYTES);
            if (count < 1) {
                throw new IllegalArgumentException("preload of " + count + " keys: at least 1");
            }
            KeyLoader.load(farm.transactions(), worker, firstKey, count).whenComplete((addresses, failure) -> {
                if (failure != null) {
                    reply.fail("node " + farm.node().id() + " could not preload its keys: " + failure);
                    return;
                }
                try {
                    KeySpace.store(addresses, KeySpace.file(dataDir, farm.node().id()));
                } catch (RuntimeException e) {
                    reply.fail(e.toString());
                    return;
                }
                reply.ok();
            });
        });
        farm.rpc().register(COUNTS, "txn-bench-counts", (worker, sender, arguments, offset, length, reply) -> {
            // Each worker answers from its own slice: the answer is copied when it is sent.
            long at = (long) NodeCounts.LENGTH * worker.index();
            NodeCounts.of(farm).encode(answers, at);
            reply.ok(answers, at, NodeCounts.LENGTH);
        });
    }

    /** Asks node {@code target} to preload {@code count} keys from {@code firstKey}; completes on {@code worker}. */
    static CompletionStage<Void> preload(Farm caller, NodeWorker worker, int target, long firstKey, int count) {
        MemorySegment arguments = Arena.ofAuto().allocate(PRELOAD_LENGTH, Long.BYTES);
        arguments.set(LONG, 0, firstKey);
        arguments.set(INT, Long.BYTES, count);
        return caller.rpc().call(worker, target, PRELOAD, arguments, 0, PRELOAD_LENGTH, PRELOAD_TIMEOUT,
            (RpcDecoder<Void>) (answer, offset, length) -> null);
    }

    /** Node {@code target}'s counts; completes on {@code worker}. */
    static CompletionStage<NodeCounts> counts(Farm caller, NodeWorker worker, int target) {
        return caller.rpc().call(worker, target, COUNTS, MemorySegment.NULL, 0, 0, COUNTS_TIMEOUT, NodeCounts::decode);
    }
}
