package io.farm.core.config;

import java.util.Arrays;
import java.util.stream.Collectors;

/** The fabrics a cluster can be configured with (DESIGN §4). */
public enum FabricKind {
    /** All nodes in one JVM. */
    LOCAL("local"),
    /** One process per node on one host, region files mapped by every process. */
    SHM("shm");

    private final String id;

    FabricKind(String id) {
        this.id = id;
    }

    /** The name used in configuration, equal to the fabric's {@code Fabric.kind()}. */
    public String id() {
        return id;
    }

    /**
     * The kind named {@code id}.
     *
     * @throws IllegalArgumentException naming the accepted values otherwise
     */
    public static FabricKind of(String id) {
        for (FabricKind kind : values()) {
            if (kind.id.equals(id)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown fabric '" + id + "': accepted values are "
            + Arrays.stream(values()).map(FabricKind::id).collect(Collectors.joining(", "))
            + " (tcp and rdma are not implemented yet)");
    }
}
