package io.farm.core.msg;

import io.farm.core.fabric.FabricPort;
import io.farm.core.fabric.shm.ShmFabric;
import io.farm.core.region.Region;
import io.farm.core.region.RegionStore;

import java.nio.file.Path;

/**
 * One node of a messaging cluster on the shm fabric, as its own process runs it: its messaging
 * region created in the cluster directory, and its fabric open with that region registered.
 * Closing closes the fabric, then unmaps the region; the files stay for whoever owns the
 * cluster directory to delete.
 */
final class ShmMessagingNode implements AutoCloseable {
    private final MessagingLayout layout;
    private final int node;
    private final RegionStore store;
    private final Region region;
    private final ShmFabric fabric;

    ShmMessagingNode(Path clusterDir, int node, MessagingLayout layout) {
        this.layout = layout;
        this.node = node;
        this.store = new RegionStore(clusterDir, node, layout.regionSize());
        try {
            this.region = store.create(MessagingLayout.regionId(node), layout.regionSize());
            this.fabric = ShmFabric.open(clusterDir, node);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        try {
            fabric.register(region);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The node's messaging region. */
    Region region() {
        return region;
    }

    /** Opens a port confined to the calling thread. */
    FabricPort openPort() {
        return fabric.openPort();
    }

    /** The messenger of worker 0, on {@code port}. */
    Messenger messenger(FabricPort port) {
        return new Messenger(layout, node, 0, port, region, Messenger.capabilities(fabric));
    }

    @Override
    public void close() {
        try {
            fabric.close();
        } finally {
            store.close();
        }
    }
}
