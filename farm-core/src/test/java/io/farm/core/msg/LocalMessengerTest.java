package io.farm.core.msg;

import io.farm.core.fabric.local.LocalNetwork;

/** The messenger on the local fabric. */
class LocalMessengerTest extends MessengerContract {
    @Override
    protected FabricFactory fabrics() {
        LocalNetwork network = new LocalNetwork();
        return (clusterDir, node) -> network.attach(node);
    }
}
