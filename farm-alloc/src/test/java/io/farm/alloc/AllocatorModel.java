package io.farm.alloc;

import net.jqwik.api.statistics.Statistics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.farm.alloc.TestNode.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node's allocators (two slab allocators, 4 MiB regions of 1 MiB blocks) next to a simple
 * model of them: the set of live objects and their sizes, and the addresses freed since. Each
 * action runs on the allocators and checks what the model predicts; {@link #checkInvariants()}
 * checks the whole state after every action.
 */
final class AllocatorModel {
    static final int SLABS = 2;

    /** Where a location hint points. */
    enum Hint { NONE, LIVE_OBJECT, ANYWHERE_IN_A_REGION, FREED_OBJECT }

    /** Bad input an action tries. */
    enum BadInput { FREE_AGAIN, FREE_INSIDE_AN_OBJECT, SIZE, HINT_IN_ANOTHER_NODES_REGION }

    private final TestNode node;
    /** Live objects: address to requested size. */
    private final TreeMap<Long, Integer> live = new TreeMap<>();
    /** Addresses freed and not allocated again: address to size class at the free. */
    private final Map<Long, Integer> freed = new HashMap<>();
    /** Live objects when the slab allocators (and their counters) were created. */
    private int liveAtStart;

    AllocatorModel(TestNode node) {
        this.node = node;
    }

    @Override
    public String toString() {
        return live.size() + " live, " + freed.size() + " freed, " + node.blocks.stats();
    }

    void allocate(int slab, int size, Hint hintKind, int pick) {
        long hint = hint(hintKind, pick);
        int sizeClass = SizeClasses.classOf(size);
        AllocatorState before = node.blocks.state();
        long safe = node.epochs.safe();
        boolean hintBlockHasRoom = hint != ObjectAddress.NULL && blockHasRoom(before, hint, sizeClass, slab);
        boolean hintRegionHasRoom = hint != ObjectAddress.NULL
            && regionHasRoom(before.regions().get(ObjectAddress.regionId(hint)), sizeClass, slab, safe);
        boolean anyRegionHasRoom = before.regions().values().stream()
            .anyMatch(blocks -> regionHasRoom(blocks, sizeClass, slab, safe));
        int requests = node.regions.hints().size();

        long address = node.slab(slab).tryAllocate(size, hint);
        if (address == ObjectAddress.NULL) {
            assertFalse(anyRegionHasRoom, "tryAllocate found no room, but a region has room for class " + sizeClass);
            address = node.allocate(slab, size, hint);
            assertEquals(requests + 1, node.regions.hints().size());
            assertEquals(ObjectAddress.regionId(hint), (int) node.regions.hints().getLast(), "the hint's region goes to the source");
        } else {
            assertTrue(anyRegionHasRoom, "allocated where the model sees no room");
            assertEquals(requests, node.regions.hints().size(), "no region asked for while there was room");
        }
        assertFalse(live.containsKey(address), () -> "allocated a live object again");
        long result = address;
        if (hintBlockHasRoom) {
            assertEquals(ObjectAddress.regionId(hint), ObjectAddress.regionId(address), "hint's block has room");
            assertEquals(block(hint), block(address), () -> "hint's block has room: " + ObjectAddress.toString(hint)
                + " -> " + ObjectAddress.toString(result));
        } else if (hintRegionHasRoom) {
            assertEquals(ObjectAddress.regionId(hint), ObjectAddress.regionId(address), "hint's region has room");
        }
        live.put(address, size);
        freed.remove(address);
        Statistics.label("allocation").collect(hint == ObjectAddress.NULL ? "no hint"
            : hintBlockHasRoom ? "hinted block" : hintRegionHasRoom ? "hinted region" : "hinted region full");
        List<AllocatorState.BlockSnapshot> blocksBefore = before.regions().get(ObjectAddress.regionId(address));
        long wordBefore = blocksBefore == null ? BlockState.FREE_WORD : blocksBefore.get(block(address)).stateWord();
        Statistics.label("block").collect(switch (BlockState.kind(wordBefore)) {
            case BlockState.SLAB -> "in use";
            case BlockState.RELEASED -> BlockState.sizeClass(wordBefore) == sizeClass ? "released by its class" : "released by another class";
            default -> blocksBefore == null ? "in a new region" : "free";
        });
    }

    void free(int slab, int pick) {
        if (live.isEmpty()) {
            return;
        }
        long address = nth(live.keySet(), pick);
        node.slab(slab).free(address);
        freed.put(address, SizeClasses.classOf(live.remove(address)));
    }

    /**
     * Frees an object (by its own slab or the other) and has its slab allocate its class again
     * with the object as hint: the slot comes back at once (same-class reuse), as long as its
     * block holds another live object (so that it stays with the slab).
     */
    void freeAndAllocateAgain(boolean byOwner, int pick) {
        if (live.isEmpty()) {
            return;
        }
        long address = nth(live.keySet(), pick);
        int size = live.get(address);
        int owner = BlockState.owner(node.blocks.state().regions().get(ObjectAddress.regionId(address)).get(block(address)).stateWord());
        boolean blockKeepsAnObject = live.keySet().stream()
            .anyMatch(other -> other != address && ObjectAddress.regionId(other) == ObjectAddress.regionId(address)
                && block(other) == block(address));
        node.slab(byOwner ? owner : (owner + 1) % SLABS).free(address);
        live.remove(address);
        freed.put(address, SizeClasses.classOf(size));
        if (blockKeepsAnObject) {
            assertEquals(address, node.slab(owner).tryAllocate(size, address), "a freed slot is reused first");
            live.put(address, size);
            freed.remove(address);
        }
    }

    void advanceEpoch(boolean reclaim) {
        if (reclaim) {
            node.epochs.advance();
        } else {
            node.epochs.advanceWithoutReclaiming();
        }
    }

    /** A failure and recovery: new allocators rebuilt from memory alone have the same state. */
    void rebuild() {
        AllocatorState before = node.blocks.state();
        node.rebuild();
        AllocatorState after = node.blocks.state();
        assertNull(before.difference(after));
        assertEquals(before, after);
        liveAtStart = live.size();
        Statistics.label("rebuild").collect(live.isEmpty() ? "no live objects" : "live objects");
    }

    void tryBadInput(BadInput kind, int pick) {
        Class<? extends RuntimeException> expected;
        Runnable call;
        switch (kind) {
            case FREE_AGAIN -> {
                if (freed.isEmpty()) {
                    return;
                }
                long address = nth(freed.keySet(), pick);
                long word = node.blocks.state().regions().get(ObjectAddress.regionId(address)).get(block(address)).stateWord();
                if (BlockState.kind(word) == BlockState.SLAB && BlockState.sizeClass(word) == freed.get(address)) {
                    expected = IllegalStateException.class;
                } else if (BlockState.kind(word) != BlockState.SLAB) {
                    expected = IllegalArgumentException.class;
                } else {
                    return;
                }
                call = () -> node.slab(pick % SLABS).free(address);
            }
            case FREE_INSIDE_AN_OBJECT -> {
                long address = live.isEmpty() ? ObjectAddress.NULL : nth(live.keySet(), pick);
                if (address == ObjectAddress.NULL || SizeClasses.sizeOf(SizeClasses.classOf(live.get(address))) == 64) {
                    return;
                }
                expected = IllegalArgumentException.class;
                call = () -> node.slab(pick % SLABS).free(address + 64);
            }
            case SIZE -> {
                int size = switch (pick % 3) {
                    case 0 -> 0;
                    case 1 -> -1 - pick;
                    default -> MIB + 1 + pick;
                };
                expected = IllegalArgumentException.class;
                call = () -> node.slab(pick % SLABS).tryAllocate(size, ObjectAddress.NULL);
            }
            default -> {
                expected = IllegalArgumentException.class;
                call = () -> node.slab(pick % SLABS).tryAllocate(64, ObjectAddress.of(0x7000_0000 + pick, 64));
            }
        }
        AllocatorState state = node.blocks.state();
        AllocatorStats stats = node.blocks.stats();
        assertThrows(expected, call::run);
        assertEquals(state, node.blocks.state());
        assertEquals(stats, node.blocks.stats());
    }

    /**
     * The allocators' state equals what memory says; its live objects are the model's; each lies
     * on a slot of one block of its class; no two overlap; the counters agree.
     */
    void checkInvariants() {
        AllocatorState state = node.blocks.state();
        AllocatorState memory = node.scan();
        assertNull(state.difference(memory), "allocator state vs memory");
        assertEquals(state, memory);
        List<Long> stateLive = new ArrayList<>();
        for (long address : state.liveObjects()) {
            stateLive.add(address);
        }
        assertEquals(new ArrayList<>(live.keySet()), stateLive.stream().sorted().toList(), "live objects");
        long previousEnd = 0;
        for (Map.Entry<Long, Integer> object : live.entrySet()) {
            long address = object.getKey();
            int sizeClass = SizeClasses.classOf(object.getValue());
            int classSize = SizeClasses.sizeOf(sizeClass);
            int index = block(address);
            long word = state.regions().get(ObjectAddress.regionId(address)).get(index).stateWord();
            assertEquals(BlockState.SLAB, BlockState.kind(word), "block of a live object");
            assertEquals(sizeClass, BlockState.sizeClass(word), "class of a live object's block");
            int within = ObjectAddress.offset(address) - index * MIB;
            assertEquals(0, within % classSize, "on a slot boundary");
            assertTrue(within + classSize <= MIB, "inside its block");
            assertTrue(previousEnd <= address, "overlaps the previous object");
            previousEnd = address + classSize;
        }
        AllocatorStats stats = node.blocks.stats();
        assertEquals(live.size() - liveAtStart, stats.allocations() - stats.frees(), "allocations - frees");
    }

    private long hint(Hint kind, int pick) {
        return switch (kind) {
            case NONE -> ObjectAddress.NULL;
            case LIVE_OBJECT -> live.isEmpty() ? ObjectAddress.NULL : nth(live.keySet(), pick);
            case FREED_OBJECT -> freed.isEmpty() ? ObjectAddress.NULL : nth(freed.keySet(), pick);
            case ANYWHERE_IN_A_REGION -> {
                List<AllocatorRegion> regions = node.blocks.regions();
                if (regions.isEmpty()) {
                    yield ObjectAddress.NULL;
                }
                AllocatorRegion region = regions.get(pick % regions.size());
                yield ObjectAddress.of(region.regionId(), (int) ((pick * 4160L) % region.memory().byteSize()));
            }
        };
    }

    private static boolean blockHasRoom(AllocatorState state, long address, int sizeClass, int slab) {
        List<AllocatorState.BlockSnapshot> blocks = state.regions().get(ObjectAddress.regionId(address));
        int index = block(address);
        if (index == 0 || index >= blocks.size()) {
            return false;
        }
        AllocatorState.BlockSnapshot block = blocks.get(index);
        return BlockState.kind(block.stateWord()) == BlockState.SLAB && BlockState.sizeClass(block.stateWord()) == sizeClass
            && BlockState.owner(block.stateWord()) == slab && block.freeSlots() > 0;
    }

    /** Whether {@code slab} can allocate class {@code sizeClass} in the region without a new one. */
    private static boolean regionHasRoom(List<AllocatorState.BlockSnapshot> blocks, int sizeClass, int slab, long safe) {
        for (int i = 1; i < blocks.size(); i++) {
            AllocatorState.BlockSnapshot block = blocks.get(i);
            long word = block.stateWord();
            boolean room = switch (BlockState.kind(word)) {
                case BlockState.FREE -> true;
                case BlockState.SLAB -> BlockState.sizeClass(word) == sizeClass && BlockState.owner(word) == slab
                    && block.freeSlots() > 0;
                case BlockState.RELEASED -> BlockState.sizeClass(word) == sizeClass || BlockState.epoch(word) <= safe;
                default -> false;
            };
            if (room) {
                return true;
            }
        }
        return false;
    }

    private static int block(long address) {
        return ObjectAddress.offset(address) / MIB;
    }

    private static long nth(Iterable<Long> addresses, int pick) {
        List<Long> all = new ArrayList<>();
        addresses.forEach(all::add);
        all.sort(null);
        return all.get(pick % all.size());
    }
}
