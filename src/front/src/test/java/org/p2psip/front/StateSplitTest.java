package org.p2psip.front;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The modes of the front's state, by name. */
class StateSplitTest {

    @Test
    void frontStateReadsItsThreeNames() {
        assertEquals(FrontState.STATELESS, FrontState.parse("stateless"));
        assertEquals(FrontState.STATEFUL, FrontState.parse("stateful"));
        assertEquals(FrontState.DYNAMIC, FrontState.parse(" Dynamic "));
        assertEquals(0, FrontState.STATELESS.initialFraction());
        assertEquals(1, FrontState.STATEFUL.initialFraction());
        assertEquals(0, FrontState.DYNAMIC.initialFraction());
    }

    @Test
    void anUnknownFrontStateIsRefusedNamingTheAllowedOnes() {
        for (String bad : new String[] {"", "half", "state-less"}) {
            var e = assertThrows(IllegalArgumentException.class, () -> FrontState.parse(bad));
            assertTrue(e.getMessage().contains("stateless, stateful, dynamic"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> FrontState.parse(null));
    }
}
