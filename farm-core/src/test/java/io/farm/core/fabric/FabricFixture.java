package io.farm.core.fabric;

import io.farm.core.addr.RegionId;
import io.farm.core.region.Region;
import io.farm.core.region.RegionStore;

import java.nio.file.Path;

/**
 * Two nodes of one fabric for the conformance suite: the issuer, which runs the operations,
 * and the target, which holds the memory they touch. Each node has a region created through a
 * {@link RegionStore} in the cluster directory and registered with its fabric.
 */
public final class FabricFixture implements AutoCloseable {
    /** Size of the test regions. */
    public static final long REGION_SIZE = 1 << 20;
    /** Node id of the issuer. */
    public static final int ISSUER_NODE = 0;
    /** Node id of the target. */
    public static final int TARGET_NODE = 1;
    /** The id of each node's registered region. */
    public static final int REGION = RegionId.of(0, 1);

    public final Fabric issuer;
    public final Fabric target;
    public final RegionStore issuerStore;
    public final RegionStore targetStore;
    /** The target's region, as the target maps it: the tests look at the target's memory through it. */
    public final Region targetRegion;
    /** The capability of the target's region, as fetched by the issuer. */
    public final Capability targetCapability;
    /** The capability of the issuer's region, as fetched by the target. */
    public final Capability issuerCapability;

    /**
     * Creates each node's region in {@code clusterDir}, registers it with the node's fabric and
     * fetches the capabilities.
     *
     * @param issuer the fabric of node {@link #ISSUER_NODE}
     * @param target the fabric of node {@link #TARGET_NODE}
     */
    public FabricFixture(Path clusterDir, Fabric issuer, Fabric target) {
        this.issuer = issuer;
        this.target = target;
        this.issuerStore = new RegionStore(clusterDir, ISSUER_NODE, REGION_SIZE);
        this.targetStore = new RegionStore(clusterDir, TARGET_NODE, REGION_SIZE);
        issuer.register(issuerStore.create(REGION));
        this.targetRegion = targetStore.create(REGION);
        target.register(targetRegion);
        this.targetCapability = issuer.capability(TARGET_NODE, REGION);
        this.issuerCapability = target.capability(ISSUER_NODE, REGION);
    }

    /** Closes both fabrics, then unmaps the regions; the files go with the cluster directory. */
    @Override
    public void close() {
        issuer.close();
        target.close();
        issuerStore.close();
        targetStore.close();
    }
}
