package io.farm.core.fabric.local;

import io.farm.core.fabric.FabricConformanceTest;
import io.farm.core.fabric.FabricFixture;

import java.nio.file.Path;

/** The fabric contract on the local fabric: both nodes attached to one {@link LocalNetwork}. */
class LocalFabricConformanceTest extends FabricConformanceTest {
    @Override
    protected FabricFixture openFixture(Path clusterDir) {
        LocalNetwork network = new LocalNetwork();
        return new FabricFixture(clusterDir, network.attach(FabricFixture.ISSUER_NODE), network.attach(FabricFixture.TARGET_NODE));
    }
}
