package io.farm.core.msg;

import io.farm.core.fabric.shm.ShmFabric;

/** The messenger on the shm fabric, every node's fabric in this JVM mapping the others' files. */
class ShmMessengerTest extends MessengerContract {
    @Override
    protected FabricFactory fabrics() {
        return ShmFabric::open;
    }
}
