package io.farm.core.msg;

import io.farm.core.fabric.shm.ShmFabric;

/** The ring properties on the shm fabric, every node's fabric in this JVM mapping the others' files. */
class ShmRingProperties extends RingPropertiesContract {
    @Override
    protected FabricFactory fabrics() {
        return ShmFabric::open;
    }
}
