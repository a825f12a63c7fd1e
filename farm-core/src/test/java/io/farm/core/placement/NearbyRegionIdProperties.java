package io.farm.core.placement;

import io.farm.core.addr.RegionId;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Properties of {@link PlacementRing#nearbyRegionIdWithPrimary}: the answer is a free region of
 * the hint's ring that the node is primary for, and no free such region is nearer the hint.
 *
 * <p>Nearness is certified without scanning the ring: every position nearer than the answer is
 * either taken or not the node's. The positions nearer than the answer form an interval of the
 * ring; cut at the taken ids it falls into pieces that hold no taken id. The node's arc is one
 * contiguous interval holding the answer, which lies outside the pieces, so a piece meets the arc
 * only if one of its two ends is on the arc: checking the ends of every piece with
 * {@link PlacementRing#primary} is enough.
 */
class NearbyRegionIdProperties {
    private static final int RING_POSITIONS = RegionId.POSITIONS_PER_RING;

    /** A cluster, a placement shape for it, a node and a hint with taken ids near the hint and near the answer. */
    record Scenario(List<Member> members, int rings, int node, int hint, long seed) {
    }

    @Property(tries = 400)
    void answerIsAFreeRegionOfTheHintsRingNearestTheHint(@ForAll("scenarios") Scenario scenario,
                                                         @ForAll @IntRange(min = 0, max = 48) int takenNearby) {
        PlacementRing ring = PlacementRing.of(scenario.members(), scenario.rings(), 1);
        SplittableRandom random = new SplittableRandom(scenario.seed());
        // Taken ids around the hint and around the answer for an empty taken set: both are where they matter.
        int untouched = ring.nearbyRegionIdWithPrimary(scenario.node(), scenario.hint(), id -> false);
        Set<Integer> taken = new HashSet<>();
        for (int center : new int[] {scenario.hint(), untouched}) {
            for (int i = 0; i < takenNearby; i++) {
                int position = (RegionId.position(center) + random.nextInt(-takenNearby, takenNearby + 1)) & RegionId.POSITION_MASK;
                taken.add(RegionId.of(RegionId.ring(scenario.hint()), position));
            }
        }

        int answer = ring.nearbyRegionIdWithPrimary(scenario.node(), scenario.hint(), taken::contains);

        assertNotEquals(0, answer, "random names never tie, and 2 * 48 taken ids cannot fill an arc of 2^24 / 16 positions");
        assertNearest(ring, scenario.node(), scenario.hint(), taken, answer);
    }

    @Property(tries = 200)
    void aHintOnTheNodesOwnFreeRegionIsTheAnswer(@ForAll("scenarios") Scenario scenario) {
        PlacementRing ring = PlacementRing.of(scenario.members(), scenario.rings(), 1);
        int own = ring.regionIdWithPrimary(scenario.node(), new SplittableRandom(scenario.seed()));
        assertEquals(own, ring.nearbyRegionIdWithPrimary(scenario.node(), own, id -> false));
    }

    @Property(tries = 100)
    void successiveAllocationsNearOneHintAreDistinctAndMoveOutward(@ForAll("scenarios") Scenario scenario) {
        PlacementRing ring = PlacementRing.of(scenario.members(), scenario.rings(), 1);
        Set<Integer> taken = new HashSet<>();
        int previousDistance = 0;
        for (int i = 0; i < 32; i++) {
            int answer = ring.nearbyRegionIdWithPrimary(scenario.node(), scenario.hint(), taken::contains);
            assertTrue(taken.add(answer), () -> RegionId.toString(answer) + " was returned twice");
            int distance = distance(scenario.hint(), answer);
            assertTrue(distance >= previousDistance, () -> "allocation " + taken.size() + " moved back toward the hint");
            previousDistance = distance;
            assertNearest(ring, scenario.node(), scenario.hint(), taken.stream().filter(id -> id != answer).toList(), answer);
        }
    }

    @Example
    void aNodeThatIsPrimaryForNothingOnTheHintsRingGetsNoRegion() {
        // "node-3234" and "node-4072" hash to the same position on ring 0: node 2 (the lower id) takes the whole ring.
        PlacementRing ring = PlacementRing.of(List.of(new Member(5, "node-3234"), new Member(2, "node-4072")), 1, 2);
        assertEquals(0, ring.nearbyRegionIdWithPrimary(5, RegionId.of(0, 12345), id -> false));
        assertEquals(RegionId.of(0, 12345), ring.nearbyRegionIdWithPrimary(2, RegionId.of(0, 12345), id -> false));
    }

    @Example
    void regionZeroIsNeverTheAnswer() {
        PlacementRing ring = PlacementRing.of(List.of(new Member(1, "solo")), 1, 1);
        assertEquals(RegionId.of(0, 1), ring.nearbyRegionIdWithPrimary(1, 0, id -> false));
        assertEquals(RegionId.of(0, RegionId.POSITION_MASK),
            ring.nearbyRegionIdWithPrimary(1, 0, id -> id == RegionId.of(0, 1)));
    }

    @Example
    void hintsOutsideThePlacementAndStrangersAreRejected() {
        PlacementRing ring = PlacementRing.of(List.of(new Member(0, "node-0"), new Member(1, "node-1")), 3, 2);
        IllegalArgumentException system = assertThrows(IllegalArgumentException.class,
            () -> ring.nearbyRegionIdWithPrimary(0, RegionId.system(1, 0), id -> false));
        assertTrue(system.getMessage().contains("sys1.0 is a system region"), system.getMessage());
        IllegalArgumentException missingRing = assertThrows(IllegalArgumentException.class,
            () -> ring.nearbyRegionIdWithPrimary(0, RegionId.of(3, 5), id -> false));
        assertTrue(missingRing.getMessage().contains("rings 0..2"), missingRing.getMessage());
        IllegalArgumentException stranger = assertThrows(IllegalArgumentException.class,
            () -> ring.nearbyRegionIdWithPrimary(9, RegionId.of(1, 5), id -> false));
        assertTrue(stranger.getMessage().contains("node 9 is not a member"), stranger.getMessage());
    }

    /**
     * Checks that {@code answer} is on the hint's ring, the node's, free and not 0, and that every
     * position nearer the hint (or as near and clockwise) is taken, region 0 or another node's.
     */
    private static void assertNearest(PlacementRing ring, int node, int hint, Collection<Integer> taken, int answer) {
        String where = "answer " + RegionId.toString(answer) + " for hint " + RegionId.toString(hint) + " of node " + node;
        assertEquals(RegionId.ring(hint), RegionId.ring(answer), where + ": another ring");
        assertEquals(node, ring.primary(answer), where + ": another node's region");
        assertFalse(taken.contains(answer), where + ": taken");
        assertNotEquals(0, answer, where + ": region 0 is the null address");

        int ringIndex = RegionId.ring(hint);
        int distance = distance(hint, answer);
        // Offsets from the nearer interval's first position, h - distance + 1; its length is 2 * distance - 1.
        int first = (RegionId.position(hint) - distance + 1) & RegionId.POSITION_MASK;
        int length = 2 * distance - 1;
        TreeSet<Integer> cuts = new TreeSet<>();
        for (int id : taken) {
            if (RegionId.ring(id) == ringIndex) {
                cuts.add((RegionId.position(id) - first) & RegionId.POSITION_MASK);
            }
        }
        if (ringIndex == 0) {
            cuts.add((-first) & RegionId.POSITION_MASK);
        }
        List<int[]> pieces = new ArrayList<>();
        int start = 0;
        for (int cut : cuts.headSet(length)) {
            if (cut > start) {
                pieces.add(new int[] {start, cut - 1});
            }
            start = cut + 1;
        }
        if (start < length) {
            pieces.add(new int[] {start, length - 1});
        }
        for (int[] piece : pieces) {
            for (int end : piece) {
                int position = (first + end) & RegionId.POSITION_MASK;
                assertNotEquals(node, ring.primary(RegionId.of(ringIndex, position)),
                    where + ": position " + position + " is free, the node's and nearer the hint");
            }
        }
        int clockwiseTwin = (RegionId.position(hint) + distance) & RegionId.POSITION_MASK;
        int twin = RegionId.of(ringIndex, clockwiseTwin);
        if (twin != answer) {
            assertTrue(twin == 0 || taken.contains(twin) || ring.primary(twin) != node,
                where + ": position " + clockwiseTwin + " is as near, clockwise, and free");
        }
    }

    /** Distance between two positions of a ring, around it in the shorter direction. */
    private static int distance(int a, int b) {
        int clockwise = (RegionId.position(b) - RegionId.position(a)) & RegionId.POSITION_MASK;
        return Math.min(clockwise, RING_POSITIONS - clockwise);
    }

    /**
     * Clusters of 1 to 16 members; hints mostly within a few thousand positions of one of the
     * node's own regions (so that the answer is often the hint itself or just past an arc's end),
     * sometimes anywhere on the ring.
     */
    @Provide
    Arbitrary<Scenario> scenarios() {
        Arbitrary<List<Member>> clusters = Arbitraries.integers().between(1, 16).flatMap(n ->
            Arbitraries.integers().between(0, 1000).map(first -> {
                List<Member> members = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    members.add(new Member(i * 7 + 1, "node-" + (first + i)));
                }
                return members;
            }));
        return clusters.flatMap(members -> Combinators.combine(
                Arbitraries.integers().between(1, RegionId.MAX_RINGS),
                Arbitraries.integers().between(0, members.size() - 1),
                Arbitraries.integers().between(-3000, 3000),
                Arbitraries.integers().between(0, 9),
                Arbitraries.longs())
            .as((rings, memberIndex, offset, anywhere, seed) -> {
                int node = members.get(memberIndex).nodeId();
                SplittableRandom random = new SplittableRandom(seed);
                PlacementRing ring = PlacementRing.of(members, rings, 1);
                int hint;
                if (anywhere == 0) {
                    hint = RegionId.of(random.nextInt(rings), random.nextInt(RING_POSITIONS));
                } else {
                    // Near a region of some member, this node's or not.
                    int owner = members.get(random.nextInt(members.size())).nodeId();
                    int near = ring.regionIdWithPrimary(owner, random);
                    hint = RegionId.of(RegionId.ring(near), (RegionId.position(near) + offset) & RegionId.POSITION_MASK);
                }
                return new Scenario(members, rings, node, hint == 0 ? 1 : hint, seed);
            }));
    }
}
