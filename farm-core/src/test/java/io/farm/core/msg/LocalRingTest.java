package io.farm.core.msg;

import io.farm.core.fabric.local.LocalNetwork;

/** The ring behaviour on the local fabric. */
class LocalRingTest extends RingContract {
    @Override
    protected FabricFactory fabrics() {
        LocalNetwork network = new LocalNetwork();
        return (clusterDir, node) -> network.attach(node);
    }
}
