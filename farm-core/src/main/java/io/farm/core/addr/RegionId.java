package io.farm.core.addr;

/**
 * Layout of a 32-bit region identifier: the identifier names both a virtual ring of the
 * placement and a position on it (FaRM NSDI'14 §3.3).
 *
 * <pre>
 *   31        24 23                                0
 *  +------------+-----------------------------------+
 *  |    ring    |             position              |   data region (ring 0..254)
 *  +------------+-----------------------------------+
 *  |    0xFF    |    node (16 bits)   | index (8)   |   system region of one node
 *  +------------+-----------------------------------+
 * </pre>
 *
 * Data regions are placed by consistent hashing: the primary and backups of a data region
 * are the members that follow {@code position} on virtual ring {@code ring}. System regions
 * (ring {@value #SYSTEM_RING}) hold one node's infrastructure, such as its message and log
 * rings; they belong to the node named in them and are never placed by the ring.
 * Region id 0 (ring 0, position 0) is never allocated, so that global address 0 can mean null.
 */
public final class RegionId {
    /** Bits of the position field. */
    public static final int POSITION_BITS = 24;
    /** Number of distinct positions on one virtual ring. */
    public static final int POSITIONS_PER_RING = 1 << POSITION_BITS;
    /** Mask of the position field. */
    public static final int POSITION_MASK = POSITIONS_PER_RING - 1;
    /** The ring value reserved for system regions. */
    public static final int SYSTEM_RING = 0xFF;
    /** Largest number of virtual rings a placement may use (rings 0 .. MAX_RINGS - 1). */
    public static final int MAX_RINGS = SYSTEM_RING;
    /** Largest node id a system region can name. */
    public static final int MAX_NODE = 0xFFFF;
    /** Largest per-node index of a system region. */
    public static final int MAX_SYSTEM_INDEX = 0xFF;

    private RegionId() {
    }

    /** The id of the data region at {@code position} on virtual ring {@code ring}. */
    public static int of(int ring, int position) {
        if (ring < 0 || ring >= MAX_RINGS) {
            throw new IllegalArgumentException("ring " + ring + " out of range: data rings are 0.." + (MAX_RINGS - 1));
        }
        if (position < 0 || position > POSITION_MASK) {
            throw new IllegalArgumentException("position " + position + " out of range: 0.." + POSITION_MASK);
        }
        return ring << POSITION_BITS | position;
    }

    /** The id of system region {@code index} of node {@code node}. */
    public static int system(int node, int index) {
        if (node < 0 || node > MAX_NODE) {
            throw new IllegalArgumentException("node " + node + " out of range: 0.." + MAX_NODE);
        }
        if (index < 0 || index > MAX_SYSTEM_INDEX) {
            throw new IllegalArgumentException("system region index " + index + " out of range: 0.." + MAX_SYSTEM_INDEX);
        }
        return SYSTEM_RING << POSITION_BITS | node << 8 | index;
    }

    /** The virtual ring named by a region id ({@value #SYSTEM_RING} for system regions). */
    public static int ring(int regionId) {
        return regionId >>> POSITION_BITS;
    }

    /** The position on its ring named by a region id. */
    public static int position(int regionId) {
        return regionId & POSITION_MASK;
    }

    /** Whether the id names a system region. */
    public static boolean isSystem(int regionId) {
        return ring(regionId) == SYSTEM_RING;
    }

    /** The node owning a system region. */
    public static int systemNode(int regionId) {
        requireSystem(regionId);
        return (regionId >>> 8) & MAX_NODE;
    }

    /** The per-node index of a system region. */
    public static int systemIndex(int regionId) {
        requireSystem(regionId);
        return regionId & MAX_SYSTEM_INDEX;
    }

    private static void requireSystem(int regionId) {
        if (!isSystem(regionId)) {
            throw new IllegalArgumentException("region " + toString(regionId) + " is not a system region");
        }
    }

    /** Human-readable form: {@code r<ring>:<position>} or {@code sys<node>.<index>}. */
    public static String toString(int regionId) {
        return isSystem(regionId)
            ? "sys" + systemNode(regionId) + "." + systemIndex(regionId)
            : "r" + ring(regionId) + ":" + position(regionId);
    }
}
