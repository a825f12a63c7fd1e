package io.farm.core.fabric.shm;

import io.farm.core.fabric.LineVersionObject;
import io.farm.core.region.Region;
import io.farm.core.region.RegionStore;
import io.farm.core.testing.ParentWatch;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A node process that writes new versions of line-version objects in its own region, following
 * the protocol, while another process reads them through the shm fabric. It prints
 * {@code READY} once every object holds version 1 and the region is registered, writes versions
 * 2, 3, ... of the objects ({@link LineVersionObject#writeRound}) until the word at {@link #STOP_OFFSET} of the region turns non-zero
 * (the reader writes it through the fabric), then prints {@code WROTE <versions>}, closes its
 * fabric and exits.
 *
 * <p>Arguments: cluster directory, node id, region id, region size, then one
 * {@code <offset>:<lines>} per object.
 */
public final class LineVersionWriterNode {
    /** Offset of the stop word in the region. */
    public static final long STOP_OFFSET = 0;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private LineVersionWriterNode() {
    }

    public static void main(String[] args) {
        ParentWatch.exitWhenParentDies();
        Path clusterDir = Path.of(args[0]);
        int node = Integer.parseInt(args[1]);
        int regionId = Integer.parseInt(args[2]);
        long size = Long.parseLong(args[3]);
        List<LineVersionObject> objects = new ArrayList<>();
        for (int i = 4; i < args.length; i++) {
            String[] object = args[i].split(":");
            objects.add(new LineVersionObject(Long.parseLong(object[0]), Integer.parseInt(object[1])));
        }
        try (ShmFabric fabric = ShmFabric.open(clusterDir, node); RegionStore store = new RegionStore(clusterDir, node, size)) {
            Region region = store.create(regionId);
            MemorySegment memory = region.memory();
            for (LineVersionObject object : objects) {
                object.write(memory, 1);
            }
            fabric.register(region);
            System.out.println("READY");
            System.out.flush();
            long version = 1;
            while ((long) LONG.getAcquire(memory, STOP_OFFSET) == 0) {
                version = LineVersionObject.writeRound(memory, objects, version);
            }
            System.out.println("WROTE " + (version - 1) + " new versions");
        }
    }
}
