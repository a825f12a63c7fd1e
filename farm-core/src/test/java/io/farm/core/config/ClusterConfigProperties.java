package io.farm.core.config;

import io.farm.core.node.IdleStrategies;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ClusterConfigProperties {
    @Property(tries = 200)
    void everyValidConfigurationSurvivesARoundTripThroughProperties(@ForAll("configs") ClusterConfig config) {
        assertEquals(config, ClusterConfig.fromProperties(config.toProperties()));
    }

    @Provide
    Arbitrary<ClusterConfig> configs() {
        Arbitrary<Integer> members = Arbitraries.integers().between(1, 40);
        Arbitrary<String> name = Arbitraries.strings().withCharRange('a', 'z').numeric().withChars('.', '_', '-')
            .ofMinLength(1).ofMaxLength(64).filter(s -> Character.isLetterOrDigit(s.charAt(0)));
        Arbitrary<Integer> regionShift = Arbitraries.integers().between(12, 31);
        Arbitrary<Integer> threads = Arbitraries.integers().between(1, 64);
        Arbitrary<Integer> rings = Arbitraries.integers().between(1, 255);
        Arbitrary<Integer> ringShift = Arbitraries.integers().between(12, 30);
        Arbitrary<String> idle = Arbitraries.of(IdleStrategies.NAMES);
        Arbitrary<FabricKind> fabric = Arbitraries.of(FabricKind.class);
        Arbitrary<Boolean> pinned = Arbitraries.of(true, false);
        return Combinators.combine(members, name, regionShift, threads, rings, ringShift, idle, fabric)
            .flatAs((n, clusterName, region, t, k, ring, strategy, kind) -> Combinators.combine(
                    Arbitraries.integers().between(0, n - 1), Arbitraries.integers().between(12, 30), pinned)
                .as((f, logRing, pin) -> {
                    ClusterConfig.Builder builder = ClusterConfig.builder().name(clusterName).memberCount(n)
                        .fabric(kind).regionSize(1L << region).threads(t).backups(f).rings(k)
                        .dataDir(Path.of("/tmp", clusterName)).messageRingCapacity(1 << ring)
                        .logRingCapacity(1 << logRing).idleStrategy(strategy);
                    if (pin) {
                        builder.cpus(0);
                    }
                    return builder.build();
                }));
    }
}
