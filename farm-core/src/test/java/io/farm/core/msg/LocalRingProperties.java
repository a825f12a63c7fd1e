package io.farm.core.msg;

import io.farm.core.fabric.local.LocalNetwork;

/** The ring properties on the local fabric. */
class LocalRingProperties extends RingPropertiesContract {
    @Override
    protected FabricFactory fabrics() {
        LocalNetwork network = new LocalNetwork();
        return (clusterDir, node) -> network.attach(node);
    }
}
