package io.farm.core.fabric.shm;

import io.farm.core.fabric.Capability;
import io.farm.core.region.Region;
import io.farm.core.region.RegionFiles;
import io.farm.core.region.RegionStore;
import io.farm.core.testing.ParentWatch;

import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * A node process for the cross-process tests: opens the shm fabric of a node, creates a region
 * (or, after a restart, maps the region file the previous incarnation left), registers it,
 * prints {@code READY <key in hex>} and then does nothing until it is killed: a one-sided
 * operation needs no CPU of the node that holds the memory.
 *
 * <p>Arguments: cluster directory, node id, region id, region size, {@code create} or {@code recover}.
 */
public final class RegionHolderNode {
    private RegionHolderNode() {
    }

    public static void main(String[] args) {
        ParentWatch.exitWhenParentDies();
        Path clusterDir = Path.of(args[0]);
        int node = Integer.parseInt(args[1]);
        int regionId = Integer.parseInt(args[2]);
        long size = Long.parseLong(args[3]);
        boolean recover = switch (args[4]) {
            case "create" -> false;
            case "recover" -> true;
            default -> throw new IllegalArgumentException("mode " + args[4] + " is neither create nor recover");
        };
        ShmFabric fabric = ShmFabric.open(clusterDir, node);
        Region region;
        if (recover) {
            Path file = RegionStore.fileOf(clusterDir, node, regionId);
            region = new Region(regionId, RegionFiles.mapExisting(file, size, Arena.ofShared()), file);
        } else {
            region = new RegionStore(clusterDir, node, size).create(regionId);
        }
        Capability capability = fabric.register(region);
        System.out.println("READY " + Long.toHexString(capability.key()) + " (" + fabric + ")");
        System.out.flush();
        while (true) {
            LockSupport.park();
        }
    }
}
