package io.farm.core.node;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;
import org.junit.jupiter.api.Test;

import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IdleStrategiesTest {
    @Test
    void eachNameCreatesItsStrategy() {
        assertInstanceOf(BackoffIdleStrategy.class, IdleStrategies.create("backoff"));
        assertInstanceOf(BusySpinIdleStrategy.class, IdleStrategies.create("spin"));
        assertInstanceOf(YieldingIdleStrategy.class, IdleStrategies.create("yield"));
        assertInstanceOf(SleepingIdleStrategy.class, IdleStrategies.create("sleep"));
        assertEquals("backoff", IdleStrategies.DEFAULT);
    }

    @Test
    void everyCallCreatesANewInstanceBecauseStrategiesAreStateful() {
        for (String name : IdleStrategies.NAMES) {
            assertNotSame(IdleStrategies.create(name), IdleStrategies.create(name), name);
            Supplier<IdleStrategy> factory = IdleStrategies.factory(name);
            assertNotSame(factory.get(), factory.get(), name);
        }
    }

    @Test
    void anUnknownNameIsRejectedWithTheAcceptedNames() {
        for (String bad : new String[] {"busy", "Backoff", "", null}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IdleStrategies.create(bad));
            assertTrue(e.getMessage().contains("unknown idle strategy '" + bad + "'"), e.getMessage());
            for (String name : IdleStrategies.NAMES) {
                assertTrue(e.getMessage().contains(name), e.getMessage());
            }
        }
        assertThrows(IllegalArgumentException.class, () -> IdleStrategies.factory("noop"));
    }
}
