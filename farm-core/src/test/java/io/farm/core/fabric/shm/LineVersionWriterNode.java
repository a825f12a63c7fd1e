package io.farm.core.fabric.shm;

import io.farm.core.fabric.LineVersionObject;
import io.farm.core.region.Region;
import io.farm.core.region.RegionStore;
import io.farm.core.testing.ParentWatch;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;

/**
 * A node process that writes new versions of a multi-line object in its own region, following
 * the line-version protocol, while another process reads it through the shm fabric. It prints
 * {@code READY} once the object holds version 1 and the region is registered, writes versions
 * 2, 3, ... until the word at {@link #STOP_OFFSET} of the region turns non-zero (the reader
 * writes it through the fabric), then prints {@code WROTE <versions>}, closes its fabric and exits.
 *
 * <p>Arguments: cluster directory, node id, region id, region size, object offset, lines.
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
        long offset = Long.parseLong(args[4]);
        int lines = Integer.parseInt(args[5]);
        try (ShmFabric fabric = ShmFabric.open(clusterDir, node); RegionStore store = new RegionStore(clusterDir, node, size)) {
            Region region = store.create(regionId);
            MemorySegment memory = region.memory();
            LineVersionObject.write(memory, offset, lines, 1);
            fabric.register(region);
            System.out.println("READY");
            System.out.flush();
            long version = 1;
            while ((long) LONG.getAcquire(memory, STOP_OFFSET) == 0) {
                LineVersionObject.write(memory, offset, lines, ++version);
            }
            System.out.println("WROTE " + version + " versions");
        }
    }
}
