package io.farm.core.placement;

import io.farm.core.addr.RegionId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.List;
import java.util.random.RandomGenerator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PlacementRingTest {
    private static final List<Member> FIVE = List.of(
        new Member(0, "node-0"), new Member(1, "node-1"), new Member(2, "node-2"), new Member(3, "node-3"), new Member(4, "node-4"));

    @Test
    void dataRegionsAreThoseOnItsRingsExceptRegionZeroAndSystemRegions() {
        PlacementRing ring = PlacementRing.of(FIVE, 3, 2);
        assertTrue(ring.isDataRegion(RegionId.of(0, 1)));
        assertTrue(ring.isDataRegion(RegionId.of(2, 12345)));
        assertFalse(ring.isDataRegion(0), "region 0: global address 0 is null");
        assertFalse(ring.isDataRegion(RegionId.of(3, 1)), "ring 3 of a 3-ring placement");
        assertFalse(ring.isDataRegion(RegionId.system(1, 0)), "a system region");
    }

    @Test
    void ringPositionsNeverChangeBecauseEveryNodeMustAgreeOnThem() {
        assertEquals(9745010, RingHash.position("node-0", 0));
        assertEquals(11362330, RingHash.position("node-0", 1));
        assertEquals(16158501, RingHash.position("10.0.0.7:7000", 99));
        assertEquals(12911179, RingHash.position("é", 254));
    }

    @Test
    void primaryPositionsCountsEveryPositionOfOneRing() {
        PlacementRing ring = PlacementRing.of(FIVE, 1, 2);
        long[] counted = new long[FIVE.size()];
        for (int position = 0; position < RegionId.POSITIONS_PER_RING; position++) {
            counted[ring.primary(RegionId.of(0, position))]++;
        }
        for (Member member : FIVE) {
            assertEquals(counted[member.nodeId()], ring.primaryPositions(member.nodeId()), member::toString);
        }
    }

    @Test
    void aSingleMemberStoresEveryRegion() {
        PlacementRing ring = PlacementRing.of(List.of(new Member(7, "solo")), 3, 1);
        for (int regionId : new int[] {0, RegionId.of(1, 12345), RegionId.of(2, RegionId.POSITION_MASK)}) {
            assertEquals(ReplicaSet.of(7), ring.replicas(regionId));
        }
        assertEquals(3L * RegionId.POSITIONS_PER_RING, ring.primaryPositions(7));
    }

    @Test
    void pointsOnTheSamePositionAreOrderedByNodeId() {
        // "node-3234" and "node-4072" hash to the same position on ring 0.
        int position = RingHash.position("node-3234", 0);
        assertEquals(position, RingHash.position("node-4072", 0));
        PlacementRing ring = PlacementRing.of(List.of(new Member(5, "node-3234"), new Member(2, "node-4072")), 1, 2);

        assertEquals(ReplicaSet.of(2, 5), ring.replicas(RegionId.of(0, position)));
        assertEquals(ReplicaSet.of(2, 5), ring.replicas(RegionId.of(0, position + 1)));
        assertEquals(RegionId.POSITIONS_PER_RING, ring.primaryPositions(2));
        assertEquals(0, ring.primaryPositions(5));
        IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> ring.regionIdWithPrimary(5, RandomGenerator.getDefault()));
        assertTrue(e.getMessage().contains("node 5 is primary for no region"), e.getMessage());
    }

    @Test
    void regionIdZeroIsSteppedOver() {
        // One member, one ring: its arc is the whole ring, starting just after its own point.
        PlacementRing ring = PlacementRing.of(List.of(new Member(1, "node-1")), 1, 1);
        int start = (RingHash.position("node-1", 0) + 1) & RegionId.POSITION_MASK;
        int offsetOfPositionZero = (RegionId.POSITIONS_PER_RING - start) & RegionId.POSITION_MASK;

        assertEquals(RegionId.of(0, 1), ring.regionIdWithPrimary(1, offsets(offsetOfPositionZero)));
        assertEquals(RegionId.of(0, RegionId.POSITION_MASK), ring.regionIdWithPrimary(1, offsets(offsetOfPositionZero - 1)));
        assertEquals(RegionId.of(0, RingHash.position("node-1", 0)),
            ring.regionIdWithPrimary(1, offsets(RegionId.POSITIONS_PER_RING - 2)));
    }

    @Test
    void allocatedRegionsSpanTheArcFromAfterThePredecessorToTheNodesOwnPoint() {
        PlacementRing ring = PlacementRing.of(FIVE, 1, 3);
        for (Member member : FIVE) {
            int node = member.nodeId();
            int usable = (int) ring.primaryPositions(node) - (ring.primary(0) == node ? 1 : 0);

            int last = ring.regionIdWithPrimary(node, offsets(usable - 1));
            assertEquals(RegionId.of(0, RingHash.position(member.name(), 0)), last, member::toString);

            int first = ring.regionIdWithPrimary(node, offsets(0));
            assertEquals(node, ring.primary(first), member::toString);
            int justBefore = RegionId.of(0, (RegionId.position(first) - 1) & RegionId.POSITION_MASK);
            assertTrue(ring.primary(justBefore) != node, member::toString);
        }
    }

    @Test
    void replicaSetListsPrimaryThenBackups() {
        ReplicaSet set = ReplicaSet.of(4, 1, 9);
        assertEquals(4, set.primary());
        assertEquals(9, set.node(2));
        assertEquals(1, set.indexOf(1));
        assertEquals(-1, set.indexOf(2));
        assertTrue(set.contains(9));
        assertFalse(set.contains(0));
        assertEquals("[4, 1, 9]", set.toString());
    }

    @Test
    void regionsOutsideThePlacementAreRejected() {
        PlacementRing ring = PlacementRing.of(FIVE, 10, 3);
        assertRejected(() -> ring.replicas(RegionId.system(3, 1)), "sys3.1 is a system region");
        assertRejected(() -> ring.primary(RegionId.system(3, 1)), "not placed by the ring");
        assertRejected(() -> ring.replicas(RegionId.of(10, 5)), "rings 0..9");
        assertRejected(() -> ring.primary(RegionId.of(200, 5)), "rings 0..9");
    }

    @Test
    void badShapesAreRejected() {
        assertRejected(() -> PlacementRing.of(List.of(), 1), "at least one member");
        assertRejected(() -> PlacementRing.of(FIVE, 0, 1), "1..255");
        assertRejected(() -> PlacementRing.of(FIVE, 256, 1), "1..255");
        assertRejected(() -> PlacementRing.of(FIVE, 0), "replicas 0 out of range: 1..5");
        assertRejected(() -> PlacementRing.of(FIVE, 6), "replicas 6 out of range: 1..5");
        assertRejected(() -> PlacementRing.of(List.of(new Member(1, "a"), new Member(1, "b")), 1), "distinct node ids");
        assertRejected(() -> PlacementRing.of(List.of(new Member(1, "a"), new Member(2, "a")), 1), "distinct names");
    }

    @Test
    void badMembersAreRejected() {
        assertRejected(() -> new Member(-1, "a"), "0..65535");
        assertRejected(() -> new Member(RegionId.MAX_NODE + 1, "a"), "0..65535");
        assertRejected(() -> new Member(1, ""), "non-empty name");
        assertRejected(() -> new Member(1, null), "non-empty name");
    }

    @Test
    void membershipChangesThatBreakThePlacementAreRejected() {
        PlacementRing ring = PlacementRing.of(FIVE, 4, 5);
        assertRejected(() -> ring.withMember(new Member(2, "node-9")), "distinct node ids");
        assertRejected(() -> ring.withMember(new Member(9, "node-2")), "distinct names");
        assertRejected(() -> ring.withoutMember(9), "node 9 is not a member");
        assertRejected(() -> ring.withoutMember(2), "5 copies per region need 5 members and only 4 would remain");
        assertRejected(() -> ring.regionIdWithPrimary(9, RandomGenerator.getDefault()), "members are [0, 1, 2, 3, 4]");
        assertRejected(() -> ring.primaryPositions(9), "node 9 is not a member");
    }

    @Test
    void membershipChangesKeepRingsAndReplicas() {
        PlacementRing grown = PlacementRing.of(FIVE, 4, 2).withMember(new Member(8, "node-8"));
        assertEquals(4, grown.rings());
        assertEquals(2, grown.replicas());
        assertTrue(grown.contains(8));
        PlacementRing shrunk = grown.withoutMember(0);
        assertFalse(shrunk.contains(0));
        assertEquals(List.of(1, 2, 3, 4, 8), shrunk.members().stream().map(Member::nodeId).toList());
    }

    @Test
    void badReplicaSetsAreRejected() {
        assertRejected(ReplicaSet::of, "at least one node");
        assertRejected(() -> ReplicaSet.of(1, -2), "node ids are >= 0");
        assertRejected(() -> ReplicaSet.of(1, 2, 1), "node 1 appears twice");
    }

    private static void assertRejected(Executable call, String expectedMessagePart) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(expectedMessagePart), () -> "message \"" + e.getMessage() + "\" lacks \"" + expectedMessagePart + "\"");
    }

    /** A generator whose bounded ints are {@code offset} when it fits the bound, else 0 (ring choice). */
    private static RandomGenerator offsets(int offset) {
        return new RandomGenerator() {
            @Override
            public long nextLong() {
                throw new UnsupportedOperationException("only bounded ints are drawn");
            }

            @Override
            public int nextInt(int bound) {
                return offset < bound ? offset : 0;
            }
        };
    }
}
