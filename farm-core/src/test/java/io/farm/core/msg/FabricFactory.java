package io.farm.core.msg;

import io.farm.core.fabric.Fabric;

import java.nio.file.Path;

/** Opens the fabric of one node of a test cluster; one factory per cluster (it may share a network). */
@FunctionalInterface
public interface FabricFactory {
    /**
     * @param clusterDir the cluster's data directory, where the nodes' region files live
     * @param node       the node to open a fabric for
     */
    Fabric open(Path clusterDir, int node);
}
