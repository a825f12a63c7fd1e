package io.farm.core.fabric;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The accounting of one node's fabric: the counters of every port it opened, closed ones
 * included, summed on demand ({@link Fabric#stats()}).
 */
public final class FabricAccounting {
    private final List<FabricCounters> ports = new CopyOnWriteArrayList<>();

    /** New counters for a port being opened; they stay in the totals after the port closes. */
    public FabricCounters newPort() {
        FabricCounters counters = new FabricCounters();
        ports.add(counters);
        return counters;
    }

    /** The sum of every port's counts. */
    public FabricStats total() {
        FabricStats sum = FabricStats.ZERO;
        for (FabricCounters counters : ports) {
            sum = sum.plus(counters.snapshot());
        }
        return sum;
    }
}
