package io.farm.core.placement;

import io.farm.core.addr.RegionId;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.random.RandomGenerator;

/**
 * Where data regions live: consistent hashing over {@code k} virtual rings (FaRM NSDI'14 §3.3).
 * Immutable, and a pure function of (members, k, r, region id), so every node that knows the
 * member set resolves a region to the same machines without asking anyone.
 *
 * <p>Each member has one point on every virtual ring, at the position {@code RingHash} gives its
 * name on that ring (a 24-bit position, {@link RegionId#POSITION_BITS}). A data region id names a
 * ring and a position ({@link RegionId}); its {@code r = f + 1} copies live on the {@code r}
 * members whose points follow the position clockwise: the first point at or after the position
 * (wrapping past 2<sup>24</sup> - 1 to 0) is the primary, the next {@code r - 1} are the backups.
 * Points on the same position are ordered by node id. A member is primary for the arc from just
 * after its predecessor's point up to and including its own point.
 *
 * <pre>
 *                      0
 *               n4 .---+---. n2         ring 7, r = 3: region r7:x lies on the arc
 *                /           \          (pos n0, pos n3], so its copies are
 *               |             | n0          primary  n3
 *               |             |  &lt;- x      backups  n1, n4
 *                \           /
 *               n1 '-------' n3         positions grow clockwise
 * </pre>
 *
 * <p>Since each member has exactly one point per ring, the {@code r} points after a position
 * are {@code r} distinct members. Adding a member inserts one point per ring, so a region's set
 * either stays the same or gains the new member and loses its last member; removing a member
 * changes only the sets that held it, which close up and take the next follower.
 *
 * <h2>Load balance</h2>
 * Treat the k hash functions as independent random functions. On one ring a member's share of
 * positions is the spacing after one of {@code n} random points, Beta(1, n - 1) distributed with
 * mean 1/n; its share over all rings is the mean of {@code k} independent such spacings.
 * Beta(1, n - 1) lies below the exponential of the same mean in the convex order (equal means,
 * survival functions {@code (1-x)^(n-1)} and {@code e^(-nx)} cross once), so the Chernoff bounds of
 * the mean of k exponentials hold:
 * <pre>
 *   P(share &gt;= a/n) &lt;= exp(-k (a - 1 - ln a))    for a &gt; 1
 *   P(share &lt;= a/n) &lt;= exp(-k (a - 1 - ln a))    for a &lt; 1
 * </pre>
 * With the default k = 100 a member's share is below 0.5/n with probability under e<sup>-19</sup>
 * and above 2/n with probability under e<sup>-30</sup>; its typical deviation from 1/n is about
 * 1/sqrt(k) = 10 %. {@link #primaryPositions(int)} gives a member's exact share.
 */
public final class PlacementRing {
    /** Number of virtual rings FaRM uses. */
    public static final int DEFAULT_RINGS = 100;

    private static final Comparator<Member> BY_NODE_ID = Comparator.comparingInt(Member::nodeId);

    private final Member[] members;
    private final int[] nodeIds;
    private final int rings;
    private final int replicas;
    /** Point j of ring i is at {@code [i * n + j]}, sorted by (position, node id) within a ring. */
    private final int[] pointPositions;
    private final int[] pointNodes;
    /** The index j of member m's point on ring i is at {@code [m * rings + i]}. */
    private final int[] pointOfMember;

    private PlacementRing(Member[] members, int rings, int replicas) {
        this.members = members;
        this.rings = rings;
        this.replicas = replicas;
        int n = members.length;
        nodeIds = new int[n];
        for (int m = 0; m < n; m++) {
            nodeIds[m] = members[m].nodeId();
        }
        pointPositions = new int[rings * n];
        pointNodes = new int[rings * n];
        pointOfMember = new int[n * rings];
        long[] points = new long[n];
        for (int ring = 0; ring < rings; ring++) {
            for (int m = 0; m < n; m++) {
                // Members are sorted by node id, so ordering by (position, member index) breaks ties by node id.
                points[m] = (long) RingHash.position(members[m].name(), ring) << Integer.SIZE | m;
            }
            Arrays.sort(points);
            for (int j = 0; j < n; j++) {
                int m = (int) points[j];
                pointPositions[ring * n + j] = (int) (points[j] >>> Integer.SIZE);
                pointNodes[ring * n + j] = nodeIds[m];
                pointOfMember[m * rings + ring] = j;
            }
        }
    }

    /**
     * A placement of {@code replicas} copies per region over {@value #DEFAULT_RINGS} virtual rings.
     *
     * @see #of(Collection, int, int)
     */
    public static PlacementRing of(Collection<Member> members, int replicas) {
        return of(members, DEFAULT_RINGS, replicas);
    }

    /**
     * A placement over {@code rings} virtual rings storing {@code replicas} copies of each region.
     * The order of {@code members} does not matter.
     *
     * @param members  the cluster members, at least one, with distinct node ids and distinct names
     * @param rings    number of virtual rings k, 1 .. {@value RegionId#MAX_RINGS}
     * @param replicas copies per region r = f + 1, 1 .. number of members
     * @throws IllegalArgumentException if any of these is violated
     */
    public static PlacementRing of(Collection<Member> members, int rings, int replicas) {
        if (rings < 1 || rings > RegionId.MAX_RINGS) {
            throw new IllegalArgumentException("virtual rings " + rings + " out of range: 1.." + RegionId.MAX_RINGS);
        }
        if (members.isEmpty()) {
            throw new IllegalArgumentException("a placement needs at least one member");
        }
        Member[] sorted = members.toArray(new Member[0]);
        Arrays.sort(sorted, BY_NODE_ID);
        for (int m = 1; m < sorted.length; m++) {
            if (sorted[m].nodeId() == sorted[m - 1].nodeId()) {
                throw new IllegalArgumentException("node id " + sorted[m].nodeId() + " is used by both " + sorted[m - 1]
                    + " and " + sorted[m] + ": members need distinct node ids");
            }
        }
        Member[] byName = sorted.clone();
        Arrays.sort(byName, Comparator.comparing(Member::name));
        for (int m = 1; m < byName.length; m++) {
            if (byName[m].name().equals(byName[m - 1].name())) {
                throw new IllegalArgumentException("name \"" + byName[m].name() + "\" is used by both " + byName[m - 1]
                    + " and " + byName[m] + ": members need distinct names");
            }
        }
        if (replicas < 1 || replicas > sorted.length) {
            throw new IllegalArgumentException("replicas " + replicas + " out of range: 1.." + sorted.length
                + " (copies per region, at most one per member)");
        }
        return new PlacementRing(sorted, rings, replicas);
    }

    /** The members, ordered by node id. */
    public List<Member> members() {
        return List.of(members);
    }

    /** Whether {@code nodeId} is a member. */
    public boolean contains(int nodeId) {
        return Arrays.binarySearch(nodeIds, nodeId) >= 0;
    }

    /** Number of virtual rings k. */
    public int rings() {
        return rings;
    }

    /** Copies per region r = f + 1. */
    public int replicas() {
        return replicas;
    }

    /**
     * Whether {@code regionId} can hold objects in this placement: not region 0 (global address 0
     * is null), not a system region, and on one of its rings.
     */
    public boolean isDataRegion(int regionId) {
        return regionId != 0 && !RegionId.isSystem(regionId) && RegionId.ring(regionId) < rings;
    }

    /**
     * The machines storing data region {@code regionId}: the {@link #replicas()} members that
     * follow its position on its ring, primary first.
     *
     * @throws IllegalArgumentException if the id names a system region or a ring this placement lacks
     */
    public ReplicaSet replicas(int regionId) {
        int ring = ringOf(regionId);
        int n = members.length;
        int first = successor(ring, RegionId.position(regionId));
        int[] nodes = new int[replicas];
        for (int t = 0; t < replicas; t++) {
            nodes[t] = pointNodes[ring * n + (first + t) % n];
        }
        return ReplicaSet.wrap(nodes);
    }

    /**
     * The machine storing the primary copy of data region {@code regionId}; equal to
     * {@code replicas(regionId).primary()} without allocating.
     *
     * @throws IllegalArgumentException if the id names a system region or a ring this placement lacks
     */
    public int primary(int regionId) {
        int ring = ringOf(regionId);
        return pointNodes[ring * members.length + successor(ring, RegionId.position(regionId))];
    }

    /**
     * A fresh data region id whose primary is {@code nodeId} (the region allocator's choice,
     * FaRM §3.3): a ring chosen uniformly among those where the node is primary for some position,
     * then a position chosen uniformly on the node's arc of that ring. Never region id 0, which is
     * reserved so that global address 0 can mean null.
     *
     * @throws IllegalArgumentException if {@code nodeId} is not a member
     * @throws IllegalStateException    if the node is primary for no usable position on any ring
     *                                  (its point ties with a lower node id's on every ring)
     */
    public int regionIdWithPrimary(int nodeId, RandomGenerator random) {
        int m = memberIndex(nodeId);
        int usableRings = 0;
        for (int ring = 0; ring < rings; ring++) {
            if (usableArcLength(ring, pointOfMember[m * rings + ring]) > 0) {
                usableRings++;
            }
        }
        if (usableRings == 0) {
            throw new IllegalStateException("node " + nodeId + " is primary for no region: on every ring its point ties"
                + " with a member of lower node id");
        }
        int chosen = random.nextInt(usableRings);
        for (int ring = 0; ring < rings; ring++) {
            int point = pointOfMember[m * rings + ring];
            int usable = usableArcLength(ring, point);
            if (usable > 0 && chosen-- == 0) {
                int start = (predecessorPosition(ring, point) + 1) & RegionId.POSITION_MASK;
                int offset = random.nextInt(usable);
                if (ownsRegionZero(ring, point) && offset >= ((RegionId.POSITIONS_PER_RING - start) & RegionId.POSITION_MASK)) {
                    offset++; // step over position 0 of ring 0
                }
                return RegionId.of(ring, (start + offset) & RegionId.POSITION_MASK);
            }
        }
        throw new AssertionError("chose usable ring beyond the " + usableRings + " counted");
    }

    /**
     * The data region id nearest to {@code hintRegionId} on the same virtual ring whose primary is
     * {@code nodeId} and that is not {@code taken} (the region allocator's choice for a location
     * hint, FaRM §3.3): of the positions of the hint's ring for which the node is primary, the one
     * at the smallest distance from the hint's position, distance measured around the ring in
     * either direction; of two at the same distance, the one after the hint (clockwise). Never
     * region id 0. Returns 0, which is never a region id, when no position qualifies: the node is
     * primary for no position of that ring (its point ties with a lower node id's) or every one is
     * taken.
     *
     * <p>Runs in time proportional to the number of taken ids it steps over.
     *
     * @param taken ids not to return (the regions allocated already); tested on candidates only
     * @throws IllegalArgumentException if {@code nodeId} is not a member, or the hint names a system
     *                                  region or a ring this placement lacks
     */
    public int nearbyRegionIdWithPrimary(int nodeId, int hintRegionId, IntPredicate taken) {
        int ring = ringOf(hintRegionId);
        int point = pointOfMember[memberIndex(nodeId) * rings + ring];
        int length = arcLength(ring, point);
        if (length == 0) {
            return 0;
        }
        Arc arc = new Arc(pointPositions[ring * members.length + point], length, RegionId.position(hintRegionId));
        int hint = RegionId.position(hintRegionId);
        // Candidates by distance: d clockwise (0 .. half a ring) and d counter-clockwise (1 .. just
        // under half a ring), so that every position is visited once; equal distances go clockwise first.
        long clockwise = arc.nextClockwise(0);
        long counterClockwise = arc.nextCounterClockwise(1);
        while (clockwise != Arc.NONE || counterClockwise != Arc.NONE) {
            int position;
            if (counterClockwise == Arc.NONE || clockwise != Arc.NONE && clockwise <= counterClockwise) {
                position = (int) (hint + clockwise) & RegionId.POSITION_MASK;
                clockwise = arc.nextClockwise(clockwise + 1);
            } else {
                position = (int) (hint - counterClockwise) & RegionId.POSITION_MASK;
                counterClockwise = arc.nextCounterClockwise(counterClockwise + 1);
            }
            int regionId = RegionId.of(ring, position);
            if (regionId != 0 && !taken.test(regionId)) {
                return regionId;
            }
        }
        return 0;
    }

    /**
     * A member's arc on one ring seen from a hint position: the distances, clockwise and
     * counter-clockwise from the hint, at which the arc's positions lie, each side at most half a
     * ring. Positions are described by their offset from the arc's first position.
     */
    private static final class Arc {
        static final long NONE = -1;
        private static final int HALF_RING = RegionId.POSITIONS_PER_RING / 2;

        private final int length;
        /** Offset of the hint from the arc's first position, modulo the ring. */
        private final int hintOffset;

        Arc(int lastPosition, int length, int hint) {
            this.length = length;
            int first = (lastPosition - length + 1) & RegionId.POSITION_MASK;
            this.hintOffset = (hint - first) & RegionId.POSITION_MASK;
        }

        /** The smallest clockwise distance from the hint, at least {@code d} and at most half a ring, that lies on the arc. */
        long nextClockwise(long d) {
            int offset = (int) (hintOffset + d) & RegionId.POSITION_MASK;
            // Off the arc, the next arc position clockwise is its first one, offset 0 (after wrapping).
            long next = offset < length ? d : d + RegionId.POSITIONS_PER_RING - offset;
            return next <= HALF_RING ? next : NONE;
        }

        /** The smallest counter-clockwise distance from the hint, at least {@code d} and under half a ring, that lies on the arc. */
        long nextCounterClockwise(long d) {
            int offset = (int) (hintOffset - d) & RegionId.POSITION_MASK;
            // Off the arc, the next arc position counter-clockwise is its last one, offset length - 1.
            long next = offset < length ? d : d + offset - (length - 1);
            return next < HALF_RING ? next : NONE;
        }
    }

    /**
     * The number of region positions, over all {@link #rings()} rings, for which {@code nodeId} is
     * primary. The positions of all members sum to {@code rings() * }{@link RegionId#POSITIONS_PER_RING},
     * so this divided by that total is the member's exact share of primaries for uniformly chosen
     * region ids.
     *
     * @throws IllegalArgumentException if {@code nodeId} is not a member
     */
    public long primaryPositions(int nodeId) {
        int m = memberIndex(nodeId);
        long positions = 0;
        for (int ring = 0; ring < rings; ring++) {
            positions += arcLength(ring, pointOfMember[m * rings + ring]);
        }
        return positions;
    }

    /**
     * This placement with {@code member} added (same k and r).
     *
     * @throws IllegalArgumentException if its node id or name is already used
     */
    public PlacementRing withMember(Member member) {
        List<Member> grown = new ArrayList<>(members.length + 1);
        grown.addAll(List.of(members));
        grown.add(member);
        return of(grown, rings, replicas);
    }

    /**
     * This placement without member {@code nodeId} (same k and r).
     *
     * @throws IllegalArgumentException if {@code nodeId} is not a member, or if fewer than r members would remain
     */
    public PlacementRing withoutMember(int nodeId) {
        int removed = memberIndex(nodeId);
        List<Member> shrunk = new ArrayList<>(members.length - 1);
        for (int m = 0; m < members.length; m++) {
            if (m != removed) {
                shrunk.add(members[m]);
            }
        }
        if (shrunk.size() < replicas) {
            throw new IllegalArgumentException("cannot remove node " + nodeId + ": " + replicas + " copies per region need "
                + replicas + " members and only " + shrunk.size() + " would remain");
        }
        return of(shrunk, rings, replicas);
    }

    @Override
    public String toString() {
        return "PlacementRing[rings=" + rings + ", replicas=" + replicas + ", members=" + Arrays.toString(members) + "]";
    }

    private int ringOf(int regionId) {
        if (RegionId.isSystem(regionId)) {
            throw new IllegalArgumentException("region " + RegionId.toString(regionId) + " is a system region: it belongs"
                + " to node " + RegionId.systemNode(regionId) + " and is not placed by the ring");
        }
        int ring = RegionId.ring(regionId);
        if (ring >= rings) {
            throw new IllegalArgumentException("region " + RegionId.toString(regionId) + " names ring " + ring
                + ": this placement has rings 0.." + (rings - 1));
        }
        return ring;
    }

    /** Index on {@code ring} of the first point at or after {@code position}, wrapping to 0. */
    private int successor(int ring, int position) {
        int n = members.length;
        int low = ring * n;
        int high = low + n;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (pointPositions[mid] < position) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        int index = low - ring * n;
        return index == n ? 0 : index;
    }

    private int predecessorPosition(int ring, int point) {
        int n = members.length;
        return pointPositions[ring * n + (point + n - 1) % n];
    }

    /** Number of positions for which point {@code point} of {@code ring} is primary, 0 .. 2^24. */
    private int arcLength(int ring, int point) {
        int position = pointPositions[ring * members.length + point];
        int predecessor = predecessorPosition(ring, point);
        // The first point's arc wraps: it runs from after the last point through 0 (the whole ring if n = 1).
        return point == 0 ? position - predecessor + RegionId.POSITIONS_PER_RING : position - predecessor;
    }

    private static boolean ownsRegionZero(int ring, int point) {
        return ring == 0 && point == 0;
    }

    private int usableArcLength(int ring, int point) {
        return arcLength(ring, point) - (ownsRegionZero(ring, point) ? 1 : 0);
    }

    private int memberIndex(int nodeId) {
        int m = Arrays.binarySearch(nodeIds, nodeId);
        if (m < 0) {
            throw new IllegalArgumentException("node " + nodeId + " is not a member: members are " + Arrays.toString(nodeIds));
        }
        return m;
    }
}
