package io.farm.core.fabric.shm;

import io.farm.core.fabric.FabricConformanceTest;
import io.farm.core.fabric.FabricFixture;

import java.nio.file.Path;

/**
 * The fabric contract on the shm fabric, both nodes in this JVM: each maps the other's files
 * as another process would, and liveness goes through the same alive locks.
 */
class ShmFabricConformanceTest extends FabricConformanceTest {
    @Override
    protected FabricFixture openFixture(Path clusterDir) {
        ShmFabric issuer = ShmFabric.open(clusterDir, FabricFixture.ISSUER_NODE);
        try {
            return new FabricFixture(clusterDir, issuer, ShmFabric.open(clusterDir, FabricFixture.TARGET_NODE));
        } catch (RuntimeException e) {
            issuer.close();
            throw e;
        }
    }
}
