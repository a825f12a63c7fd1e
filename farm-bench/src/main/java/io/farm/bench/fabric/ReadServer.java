package io.farm.bench.fabric;

import io.farm.core.cluster.Node;
import io.farm.core.cluster.NodeWorker;
import io.farm.core.region.Region;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/**
 * The server side of the fabric benchmark: a region of random bytes that clients read either
 * one-sided or by asking this node with a {@link ReadProtocol#REQUEST} message, which it answers
 * with a {@link ReadProtocol#RESPONSE} carrying the bytes (FaRM's RPC baseline).
 */
public final class ReadServer {
    private ReadServer() {
    }

    /**
     * Creates region {@code regionId} of {@code regionSize} bytes on {@code node}, fills it with
     * random bytes (populating every page), and installs the request handler.
     */
    public static Region install(Node node, int regionId, long regionSize) {
        Region region = node.createRegion(regionId, regionSize);
        fill(region.memory(), regionId);
        MemorySegment memory = region.memory();
        MemorySegment[] staging = new MemorySegment[node.config().threads()];
        for (int i = 0; i < staging.length; i++) {
            staging[i] = Arena.global().allocate(ReadProtocol.MAX_RESPONSE, 64);
        }
        node.registerHandler(ReadProtocol.REQUEST, (worker, sender, type, payload, offset, length) ->
            answer(worker, sender, memory, staging[worker.index()], payload, offset, length));
        return region;
    }

    private static void answer(NodeWorker worker, int sender, MemorySegment memory, MemorySegment staging,
                               MemorySegment request, long offset, int length) {
        if (length != ReadProtocol.REQUEST_LENGTH) {
            throw new IllegalStateException("malformed read request of " + length + " bytes from node " + sender
                + " (expected " + ReadProtocol.REQUEST_LENGTH + "); dropped");
        }
        long tag = request.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
        long readOffset = request.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + 8);
        int readLength = request.get(ValueLayout.JAVA_INT_UNALIGNED, offset + 16);
        if (readOffset < 0 || readLength < 0 || readLength > ReadProtocol.MAX_RESPONSE - 8
            || readOffset > memory.byteSize() - readLength) {
            throw new IllegalStateException("read request from node " + sender + " for " + readLength + " bytes at "
                + readOffset + " is outside the " + memory.byteSize() + "-byte region; dropped");
        }
        staging.set(ValueLayout.JAVA_LONG, 0, tag);
        MemorySegment.copy(memory, readOffset, staging, 8, readLength);
        worker.messenger().send(sender, ReadProtocol.RESPONSE, staging, 0, 8 + readLength);
    }

    private static void fill(MemorySegment memory, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        for (long i = 0; i < memory.byteSize(); i += 8) {
            memory.set(ValueLayout.JAVA_LONG, i, random.nextLong());
        }
    }
}
