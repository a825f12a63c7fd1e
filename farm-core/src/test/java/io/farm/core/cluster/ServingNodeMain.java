package io.farm.core.cluster;

import io.farm.core.addr.RegionId;
import io.farm.core.config.ClusterConfig;
import io.farm.core.fabric.shm.ShmFabric;
import io.farm.core.region.Region;
import io.farm.core.testing.ParentWatch;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * A node process for {@link ShmNodeProcessTest}: starts node {@code id} of the cluster in
 * {@code configFile} over the shm fabric, creates {@link #REGION} filled with the test pattern,
 * prints {@code READY} and serves until a {@link #STOP} message arrives; then closes the node
 * (deleting its files), prints {@code CLOSED} and exits 0. If the test JVM goes away first, the
 * process halts ({@link ParentWatch}).
 *
 * <p>Arguments: {@code configFile id}.
 */
public final class ServingNodeMain {
    /** The data region the node creates. */
    static final int REGION = RegionId.of(7, 77);
    /** Bytes of the region filled with the pattern. */
    static final long FILLED = 64 * 1024;
    /** The message type that stops the node. */
    static final int STOP = 1;

    private ServingNodeMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        ParentWatch.exitWhenParentDies();
        ClusterConfig config = ClusterConfig.load(Path.of(args[0]));
        int id = Integer.parseInt(args[1]);
        Node node = Node.start(config, id, ShmFabric.open(config.dataDir(), id));
        CountDownLatch stop = new CountDownLatch(1);
        node.registerHandler(STOP, (worker, sender, type, payload, offset, length) -> stop.countDown());
        Region region = node.createRegion(REGION, config.regionSize());
        TestClusters.fill(region.memory(), REGION, FILLED);
        System.out.println("READY node " + id + " pid " + ProcessHandle.current().pid());
        System.out.flush();
        stop.await();
        node.close();
        System.out.println("CLOSED node " + id + " with " + node.workers().errorCount() + " worker errors");
        System.out.flush();
        System.exit(0);
    }
}
