package io.farm.hashtable;

import io.farm.alloc.SizeClasses;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.object.FatPointer;
import io.farm.core.object.LockFreeOperation;
import io.farm.core.object.ObjectBuffer;
import io.farm.core.object.ObjectLayout;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** One walk of a table for {@link HashTable#census}: shard by shard, a run of buckets per read. */
final class Census {
    private static final int BUCKETS_PER_READ = 64;

    private final HashTable table;
    private final HashTableLayout layout;
    private final HashTableConfig config;
    private final LockFreeOperation operation;
    private long pairs;
    private long pairBytes;
    private long pairsInBuckets;
    private long blocks;
    private long values;
    private long occupied;

    Census(HashTable table, NodeWorker worker) {
        this.table = table;
        this.layout = table.layout();
        this.config = table.config();
        this.operation = table.farm().reads().lockFreeStart(worker);
    }

    CompletionStage<TableCensus> run() {
        long shardBytes = (long) ObjectLayout.storedSize(layout.bucketSize()) * (config.bucketsPerShard() + 1);
        occupied = table.shardCount() * allocated((int) shardBytes);
        return shard(0).handle((ignored, failure) -> {
            table.farm().reads().lockFreeEnd(operation);
            if (failure != null) {
                throw failure instanceof RuntimeException e ? e : new IllegalStateException(failure);
            }
            return new TableCensus(pairs, pairBytes, config.bucketSlots(), pairsInBuckets, blocks, values, occupied);
        });
    }

    private static long allocated(int storedSize) {
        return SizeClasses.sizeOf(SizeClasses.classOf(storedSize));
    }

    private CompletionStage<Void> shard(int shard) {
        if (shard == table.shardCount()) {
            return CompletableFuture.completedFuture(null);
        }
        return buckets(shard, 0).thenCompose(ignored -> shard(shard + 1));
    }

    private CompletionStage<Void> buckets(int shard, int first) {
        int total = config.bucketsPerShard() + 1;
        if (first >= total) {
            return CompletableFuture.completedFuture(null);
        }
        int count = Math.min(BUCKETS_PER_READ, total - first);
        return table.farm().reads().lockFreeReadArray(operation, table.shardAddress(shard), layout.bucketSize(), first, count)
            .thenCompose(read -> slots(read, 0)).thenCompose(ignored -> buckets(shard, first + count));
    }

    private CompletionStage<Void> slots(List<ObjectBuffer> buckets, int index) {
        if (index == buckets.size()) {
            return CompletableFuture.completedFuture(null);
        }
        byte[] bucket = buckets.get(index).toByteArray();
        for (int i = 0; i < config.slotsPerBucket(); i++) {
            if (count(bucket, layout.bucketSlot(i))) {
                pairsInBuckets++;
            }
        }
        return chain(HashTableLayout.overflow(bucket)).thenCompose(ignored -> slots(buckets, index + 1));
    }

    private CompletionStage<Void> chain(ChainLink block) {
        if (block == null) {
            return CompletableFuture.completedFuture(null);
        }
        return table.farm().reads().lockFreeRead(operation, block.address(), layout.blockSize()).thenCompose(buffer -> {
            if (!block.matches(buffer.objGetIncarnation())) {
                throw new IllegalStateException("table " + table.name() + " changed during its census: run it while quiet");
            }
            blocks++;
            occupied += allocated(ObjectLayout.storedSize(layout.blockSize()));
            byte[] bytes = buffer.toByteArray();
            for (int i = 0; i < config.overflowSlots(); i++) {
                count(bytes, layout.blockSlot(i));
            }
            return chain(HashTableLayout.next(bytes));
        });
    }

    /** Counts the pair in a slot, if any; returns whether there was one. */
    private boolean count(byte[] object, int slot) {
        if (!layout.used(object, slot)) {
            return false;
        }
        pairs++;
        pairBytes += layout.keyLength(object, slot);
        if (layout.valueOutOfLine(object, slot)) {
            FatPointer value = layout.valuePointer(object, slot);
            values++;
            occupied += allocated(ObjectLayout.storedSize(value.size()));
            pairBytes += value.size() - HashTableLayout.VALUE_OBJECT_HEADER;
        } else {
            pairBytes += layout.inlineValueLength(object, slot);
        }
        return true;
    }
}
