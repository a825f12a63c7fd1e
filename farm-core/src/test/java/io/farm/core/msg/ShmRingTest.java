package io.farm.core.msg;

import io.farm.core.fabric.shm.ShmFabric;

/** The ring behaviour on the shm fabric, every node's fabric in this JVM mapping the others' files. */
class ShmRingTest extends RingContract {
    @Override
    protected FabricFactory fabrics() {
        return ShmFabric::open;
    }
}
