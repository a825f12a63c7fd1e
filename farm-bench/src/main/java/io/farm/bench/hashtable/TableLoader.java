package io.farm.bench.hashtable;

import io.farm.core.cluster.Node;
import io.farm.core.object.LockFreeReadTimeoutException;
import io.farm.core.rpc.RpcException;
import io.farm.core.tx.TransactionAbortedException;
import io.farm.hashtable.HashTable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Fills a table with every key of a {@link BenchKeys} by {@link HashTable#put} from all workers
 * of one node, each keeping a window of puts in flight (worker w puts keys w, w + T, w + 2T, ...);
 * a put that fails for a passing reason is reissued ({@link Retries}).
 */
final class TableLoader {
    private TableLoader() {
    }

    /** Puts every key; returns the puts and the time they took. */
    static Throughput load(Node node, HashTable table, BenchKeys keys, int window, long timeoutSeconds) throws Exception {
        int workers = node.config().threads();
        long start = System.nanoTime();
        List<CompletableFuture<Long>> loads = new ArrayList<>();
        List<Retries> retries = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            int first = w;
            Retries workerRetries = new Retries(TableLoader::passing);
            retries.add(workerRetries);
            loads.add(node.submit(w, worker -> {
                int[] next = {first};
                return WindowedOperations.run(worker, window, on -> {
                    int i = next[0];
                    if (i >= keys.count()) {
                        return null;
                    }
                    next[0] += workers;
                    return workerRetries.run(() -> table.put(on, keys.key(i), keys.value(i)));
                });
            }));
        }
        long puts = 0;
        for (CompletableFuture<Long> load : loads) {
            puts += load.get(timeoutSeconds, TimeUnit.SECONDS);
        }
        long elapsed = System.nanoTime() - start;
        return new Throughput(puts, elapsed, retries.stream().mapToLong(Retries::count).sum());
    }

    /**
     * A put may be reissued when its transaction gave up (on the primary, reported as a failed
     * RPC, or here when this node is the primary) or a read in it timed out: puts are idempotent.
     */
    private static boolean passing(Throwable failure) {
        return failure instanceof RpcException || failure instanceof TransactionAbortedException
            || failure instanceof LockFreeReadTimeoutException;
    }
}
