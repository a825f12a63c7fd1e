package io.farm.core.alloc;

import io.farm.core.cluster.Node;
import io.farm.core.config.ClusterConfig;
import io.farm.core.fabric.shm.ShmFabric;
import io.farm.core.rpc.Rpc;
import io.farm.core.testing.ParentWatch;

import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * A node process for {@link ShmRegionAllocationProcessTest}: starts node {@code id} of the
 * cluster in {@code configFile} over the shm fabric with RPCs, the region allocator and the
 * epochs attached, prints {@code READY}, and serves: it backs up its peers' new regions,
 * acknowledges their epoch advances, and on an {@link #ALLOCATE} message (a 4-byte hint) allocates
 * a region on the receiving worker and prints {@code ALLOCATED <region id>} once the stage
 * completed (or {@code FAILED <exception>}). A {@link #STOP} message closes the node (deleting its
 * files); it prints {@code CLOSED} and exits 0. If the test JVM goes away first, the process halts
 * ({@link ParentWatch}).
 *
 * <p>Arguments: {@code configFile id}.
 */
public final class AllocatingNodeMain {
    /** Message type asking the node to allocate a region near the hint in the payload. */
    static final int ALLOCATE = 1;
    /** Message type that stops the node. */
    static final int STOP = 2;

    private AllocatingNodeMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        ParentWatch.exitWhenParentDies();
        ClusterConfig config = ClusterConfig.load(Path.of(args[0]));
        int id = Integer.parseInt(args[1]);
        Node node = Node.start(config, id, ShmFabric.open(config.dataDir(), id));
        Rpc rpc = Rpc.attach(node);
        RegionAllocator regions = RegionAllocator.attach(node, rpc);
        ClusterEpochs.attach(node);
        CountDownLatch stop = new CountDownLatch(1);
        node.registerHandler(ALLOCATE, (worker, sender, type, payload, offset, length) -> {
            int hint = payload.get(ValueLayout.JAVA_INT_UNALIGNED, offset);
            regions.newRegion(hint).whenComplete((region, failure) ->
                print(failure == null ? "ALLOCATED " + region.regionId() : "FAILED " + failure));
        });
        node.registerHandler(STOP, (worker, sender, type, payload, offset, length) -> stop.countDown());
        print("READY node " + id + " pid " + ProcessHandle.current().pid());
        stop.await();
        node.close();
        print("CLOSED node " + id + " with " + node.workers().errorCount() + " worker errors");
        System.exit(0);
    }

    private static void print(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
