package io.farm.core.placement;

import io.farm.core.addr.RegionId;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Properties of {@link PlacementRing} over random clusters (1 to 16 members named
 * {@code node-i}, {@code host:port} or arbitrarily), ring counts and replication factors, each
 * checked on a sample of region ids.
 *
 * <p>The load-balance property uses the bound derived in {@link PlacementRing}'s javadoc: with
 * k = 100 rings, each of n = 3..16 members is primary for between 0.5/n and 2/n of all region
 * positions. A member falls outside with probability below e<sup>-19</sup> (low side) plus
 * e<sup>-30</sup> (high side), so 200 tries of up to 16 members fail with probability below 2e-5.
 * The shares are computed exactly by summing arc lengths, without sampling.
 */
class PlacementRingProperties {
    private static final int REGIONS_PER_TRY = 64;

    /** A cluster, a placement shape for it and a sample of its data region ids. */
    record Scenario(List<Member> members, int rings, int replicas, List<Integer> regionIds) {
        PlacementRing ring() {
            return PlacementRing.of(members, rings, replicas);
        }
    }

    @Property(tries = 300)
    void everyRegionGetsReplicasDistinctMembers(@ForAll("scenarios") Scenario scenario) {
        PlacementRing ring = scenario.ring();
        List<Integer> memberIds = scenario.members().stream().map(Member::nodeId).toList();
        for (int regionId : scenario.regionIds()) {
            ReplicaSet replicas = ring.replicas(regionId);
            assertEquals(scenario.replicas(), replicas.size());
            assertEquals(scenario.replicas(), IntStream.of(replicas.toArray()).distinct().count(), replicas::toString);
            for (int node : replicas.toArray()) {
                assertTrue(memberIds.contains(node), () -> node + " is not a member");
            }
            assertEquals(replicas.primary(), ring.primary(regionId));
        }
    }

    @Property(tries = 300)
    void replicasAreTheMembersFollowingThePositionClockwise(@ForAll("scenarios") Scenario scenario) {
        PlacementRing ring = scenario.ring();
        for (int regionId : scenario.regionIds()) {
            assertEquals(modelReplicas(scenario.members(), scenario.replicas(), regionId), ring.replicas(regionId),
                () -> "region " + RegionId.toString(regionId));
        }
    }

    @Property(tries = 200)
    void replicasDoNotDependOnTheOrderOfMembers(@ForAll("scenarios") Scenario scenario, @ForAll long shuffleSeed) {
        List<Member> shuffled = new ArrayList<>(scenario.members());
        Collections.shuffle(shuffled, new Random(shuffleSeed));
        PlacementRing ring = scenario.ring();
        PlacementRing other = PlacementRing.of(shuffled, scenario.rings(), scenario.replicas());
        assertEquals(ring.members(), other.members());
        for (int regionId : scenario.regionIds()) {
            assertEquals(ring.replicas(regionId), other.replicas(regionId));
        }
    }

    @Property(tries = 200)
    void loadIsBalancedWithinHalfToTwiceTheFairShare(@ForAll("clustersOfThreeOrMore") List<Member> members) {
        PlacementRing ring = PlacementRing.of(members, PlacementRing.DEFAULT_RINGS, 1);
        long total = (long) PlacementRing.DEFAULT_RINGS * RegionId.POSITIONS_PER_RING;
        int n = members.size();
        long sum = 0;
        for (Member member : members) {
            long positions = ring.primaryPositions(member.nodeId());
            double share = (double) positions / total;
            assertTrue(share >= 0.5 / n && share <= 2.0 / n,
                () -> member + " is primary for " + share + " of all positions; fair share is " + 1.0 / n);
            sum += positions;
        }
        assertEquals(total, sum);
    }

    @Property(tries = 300)
    void addingAMemberMovesOnlyRegionsItJoins(
        @ForAll("scenarios") Scenario scenario, @ForAll("newcomers") Member newcomer) {
        Assume.that(scenario.members().stream().noneMatch(m -> m.nodeId() == newcomer.nodeId() || m.name().equals(newcomer.name())));
        PlacementRing before = scenario.ring();
        PlacementRing after = before.withMember(newcomer);
        for (int regionId : scenario.regionIds()) {
            List<Integer> old = nodes(before.replicas(regionId));
            List<Integer> now = nodes(after.replicas(regionId));
            if (!now.equals(old)) {
                assertTrue(now.contains(newcomer.nodeId()), () -> old + " became " + now + " without the newcomer");
                List<Integer> withoutNewcomer = new ArrayList<>(now);
                withoutNewcomer.remove(Integer.valueOf(newcomer.nodeId()));
                assertEquals(old.subList(0, old.size() - 1), withoutNewcomer,
                    () -> old + " became " + now + ": the newcomer must be inserted and the last member dropped");
            }
        }
    }

    @Property(tries = 300)
    void removingAMemberChangesOnlyRegionsThatHeldIt(
        @ForAll("scenarios") Scenario scenario, @ForAll @IntRange(min = 0, max = 15) int leaverIndex) {
        List<Member> members = scenario.members();
        Assume.that(members.size() > scenario.replicas());
        int leaver = members.get(leaverIndex % members.size()).nodeId();
        PlacementRing before = scenario.ring();
        PlacementRing after = before.withoutMember(leaver);
        PlacementRing beforeWithOneMore = PlacementRing.of(members, scenario.rings(), scenario.replicas() + 1);
        for (int regionId : scenario.regionIds()) {
            List<Integer> old = nodes(before.replicas(regionId));
            List<Integer> now = nodes(after.replicas(regionId));
            if (old.contains(leaver)) {
                List<Integer> expected = new ArrayList<>(old);
                expected.remove(Integer.valueOf(leaver));
                expected.add(beforeWithOneMore.replicas(regionId).node(scenario.replicas()));
                assertEquals(expected, now, () -> "after removing " + leaver + " from " + old);
            } else {
                assertEquals(old, now, () -> "region without " + leaver);
            }
        }
    }

    @Property(tries = 200)
    void regionIdWithPrimaryYieldsARegionTheNodeIsPrimaryFor(@ForAll("scenarios") Scenario scenario, @ForAll long seed) {
        PlacementRing ring = scenario.ring();
        SplittableRandom random = new SplittableRandom(seed);
        for (Member member : scenario.members()) {
            for (int i = 0; i < 8; i++) {
                int regionId = ring.regionIdWithPrimary(member.nodeId(), random);
                assertNotEquals(0, regionId, "region id 0 is reserved for the null address");
                assertTrue(RegionId.ring(regionId) < scenario.rings(), () -> RegionId.toString(regionId));
                assertEquals(member.nodeId(), ring.primary(regionId), () -> RegionId.toString(regionId));
            }
        }
    }

    @Provide
    Arbitrary<Scenario> scenarios() {
        return clusters(1, 16).flatMap(members -> Combinators.combine(
                Arbitraries.integers().between(1, RegionId.MAX_RINGS),
                Arbitraries.integers().between(1, members.size()))
            .flatAs((rings, replicas) -> regionIds(rings).list().ofSize(REGIONS_PER_TRY)
                .map(regionIds -> new Scenario(members, rings, replicas, regionIds))));
    }

    @Provide
    Arbitrary<List<Member>> clustersOfThreeOrMore() {
        return clusters(3, 16);
    }

    private static Arbitrary<List<Member>> clusters(int minimumSize, int maximumSize) {
        return Arbitraries.integers().between(0, RegionId.MAX_NODE).set().ofMinSize(minimumSize).ofMaxSize(maximumSize)
            .flatMap(ids -> names(ids.size()).map(names -> {
                List<Integer> nodeIds = new ArrayList<>(ids);
                List<Member> members = new ArrayList<>();
                for (int i = 0; i < nodeIds.size(); i++) {
                    members.add(new Member(nodeIds.get(i), names.get(i)));
                }
                return members;
            }));
    }

    @Provide
    Arbitrary<Member> newcomers() {
        return Combinators.combine(Arbitraries.integers().between(0, RegionId.MAX_NODE), names(1))
            .as((nodeId, names) -> new Member(nodeId, names.getFirst()));
    }

    private static Arbitrary<List<String>> names(int count) {
        Arbitrary<List<String>> numbered = Arbitraries.integers().between(0, 1000)
            .map(first -> IntStream.range(first, first + count).mapToObj(i -> "node-" + i).toList());
        Arbitrary<List<String>> hostPorts = Arbitraries.integers().between(1024, 65535).set().ofSize(count)
            .map(ports -> ports.stream().map(port -> "10.0.0.7:" + port).toList());
        Arbitrary<List<String>> arbitrary = Arbitraries.strings().alpha().numeric().withChars("-.:_é").ofMinLength(1).ofMaxLength(24)
            .set().ofSize(count).map(List::copyOf);
        return Arbitraries.oneOf(numbered, hostPorts, arbitrary);
    }

    private static Arbitrary<Integer> regionIds(int rings) {
        return Combinators.combine(
                Arbitraries.integers().between(0, rings - 1),
                Arbitraries.integers().between(0, RegionId.POSITION_MASK))
            .as(RegionId::of);
    }

    /**
     * The replicas by definition: members ordered by clockwise distance from the region's
     * position to their point on its ring, ties by node id, first r.
     */
    private static ReplicaSet modelReplicas(List<Member> members, int replicas, int regionId) {
        int ring = RegionId.ring(regionId);
        int position = RegionId.position(regionId);
        return ReplicaSet.of(members.stream()
            .sorted(Comparator.comparingInt((Member m) -> (RingHash.position(m.name(), ring) - position) & RegionId.POSITION_MASK)
                .thenComparingInt(Member::nodeId))
            .limit(replicas)
            .mapToInt(Member::nodeId)
            .toArray());
    }

    private static List<Integer> nodes(ReplicaSet replicas) {
        return IntStream.of(replicas.toArray()).boxed().toList();
    }
}
