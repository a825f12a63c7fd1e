package io.farm.alloc;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;
import net.jqwik.api.statistics.Statistics;

import java.util.ArrayList;
import java.util.List;

import static io.farm.alloc.TestNode.MIB;

/**
 * Stateful properties of the allocators against {@link AllocatorModel}: chains of allocations of
 * mixed sizes with and without location hints, frees by the owning slab and by the other one,
 * epochs that advance (with and without reclaiming), rebuilds from memory, and bad input. After
 * every step: the allocators' state equals what memory says, no two live objects overlap, every
 * live object lies in one block of its class, and the counters agree; during the steps: hints
 * are honoured whenever the hinted block or region has room, a new region is asked for only
 * when no region has room, a freed slot is reused first, a rebuild restores the state, and bad
 * input changes nothing.
 */
class AllocatorProperties {
    private final List<TestNode> nodes = new ArrayList<>();

    @AfterTry
    void freeRegions() {
        nodes.forEach(TestNode::close);
        nodes.clear();
    }

    @Property(tries = 60)
    void allocatorsBehaveLikeTheModel(@ForAll("chains") ActionChain<AllocatorModel> chain) {
        chain.withInvariant("allocators agree with memory and model", AllocatorModel::checkInvariants).run();
        Statistics.label("allocation").coverage(coverage -> {
            coverage.check("hinted block").count(n -> n > 0);
            coverage.check("hinted region").count(n -> n > 0);
            coverage.check("hinted region full").count(n -> n > 0);
        });
        Statistics.label("block").coverage(coverage -> {
            coverage.check("released by its class").count(n -> n > 0);
            coverage.check("released by another class").count(n -> n > 0);
            coverage.check("in a new region").count(n -> n > 0);
        });
        Statistics.label("rebuild").coverage(coverage -> coverage.check("live objects").count(n -> n > 0));
    }

    @Provide
    Arbitrary<ActionChain<AllocatorModel>> chains() {
        return ActionChain.startWith(this::newModel)
            .withAction(8, allocations())
            .withAction(4, frees())
            .withAction(2, freesAndAllocationsAgain())
            .withAction(2, epochAdvances())
            .withAction(1, Action.just("rebuild", Transformer.mutate("rebuild", AllocatorModel::rebuild)))
            .withAction(1, badInputs())
            .withMaxTransformations(60);
    }

    private AllocatorModel newModel() {
        TestNode node = new TestNode(AllocatorModel.SLABS, 3);
        nodes.add(node);
        return new AllocatorModel(node);
    }

    private static Arbitrary<Integer> slabs() {
        return Arbitraries.integers().between(0, AllocatorModel.SLABS - 1);
    }

    private static Arbitrary<Integer> picks() {
        return Arbitraries.integers().between(0, 1 << 20);
    }

    /** Mostly small objects (a few classes, so blocks fill), some medium, a few of up to 1 MiB. */
    private static Arbitrary<Integer> sizes() {
        return Arbitraries.frequencyOf(
            Tuple.of(8, Arbitraries.of(1, 64, 65, 100, 128, 200, 256)),
            Tuple.of(1, Arbitraries.integers().between(1, 16 << 10)),
            Tuple.of(2, Arbitraries.of(MIB / 3, MIB / 2, MIB)),
            Tuple.of(1, Arbitraries.integers().between(16 << 10, MIB)));
    }

    private static Action.Independent<AllocatorModel> allocations() {
        return () -> Combinators.combine(slabs(), sizes(), Arbitraries.of(AllocatorModel.Hint.class), picks())
            .as((slab, size, hint, pick) -> Transformer.mutate(
                "allocate " + size + " B on slab " + slab + ", hint " + hint + " #" + pick,
                model -> model.allocate(slab, size, hint, pick)));
    }

    private static Action.Independent<AllocatorModel> frees() {
        return () -> Combinators.combine(slabs(), picks())
            .as((slab, pick) -> Transformer.mutate("free #" + pick + " on slab " + slab, model -> model.free(slab, pick)));
    }

    private static Action.Independent<AllocatorModel> freesAndAllocationsAgain() {
        return () -> Combinators.combine(Arbitraries.of(true, false), picks())
            .as((byOwner, pick) -> Transformer.mutate(
                "free #" + pick + (byOwner ? " by its slab" : " by the other slab") + ", allocate again",
                model -> model.freeAndAllocateAgain(byOwner, pick)));
    }

    private static Action.Independent<AllocatorModel> epochAdvances() {
        return () -> Arbitraries.of(true, false).map(reclaim -> Transformer.mutate(
            reclaim ? "advance epoch" : "advance epoch, a worker lags", model -> model.advanceEpoch(reclaim)));
    }

    private static Action.Independent<AllocatorModel> badInputs() {
        return () -> Combinators.combine(Arbitraries.of(AllocatorModel.BadInput.class), picks())
            .as((kind, pick) -> Transformer.mutate("bad input " + kind + " #" + pick, model -> model.tryBadInput(kind, pick)));
    }
}
