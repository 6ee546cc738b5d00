package org.p2psip.dht.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoutingTableTest {

    private static NodeRef node(long id) {
        return new NodeRef(new Id(BigInteger.valueOf(id)), "10.0.0." + id + ":5000");
    }

    private static Id key(long id) {
        return new Id(BigInteger.valueOf(id));
    }

    @Test
    void aNodeAloneOwnsEveryKeyAndOneWithPeersButNoPredecessorOwnsNone() {
        var table = new FingerTable(node(100), 4);
        assertTrue(table.owns(key(5)));
        assertEquals(Id.PPM, table.rangePpm());
        table.successors(List.of(node(200)));
        assertFalse(table.owns(key(100)), "with peers but no predecessor");
        assertEquals(-1, table.rangePpm());
        table.predecessor(node(50));
        assertTrue(table.owns(key(100)));
        assertTrue(table.owns(key(51)));
        assertFalse(table.owns(key(50)));
    }

    @Test
    void aNodeAwaitingItsRecordsOwnsNothingUntilHandedThem() {
        var table = new FingerTable(node(100), 4);
        table.successors(List.of(node(200)));
        table.predecessor(node(50));
        table.awaitingRecords(true);
        assertFalse(table.owns(key(80)));
        table.awaitingRecords(false);
        assertTrue(table.owns(key(80)));
    }

    @Test
    void theSuccessorListDropsThisNodeAndRepeatsAndIsTrimmed() {
        var table = new FingerTable(node(100), 2);
        table.successors(List.of(node(200), node(100), node(200), node(300), node(400)));
        assertEquals(List.of(node(200), node(300)), table.successors());
    }

    @Test
    void theLastSuccessorIsKeptWhenItFailsUnlessAbandoned() {
        var table = new FingerTable(node(100), 4);
        table.successors(List.of(node(200)));
        table.remove(node(200));
        assertEquals(node(200), table.successor(), "silence alone never leaves a node alone");
        table.abandon(node(200));
        assertEquals(node(100), table.successor());
    }

    @Test
    void aFailedSuccessorFallsBackOnTheNearestNodeStillKnown() {
        var table = new FingerTable(node(100), 4);
        table.successors(List.of(node(200)));
        table.finger(3, node(300));
        table.finger(5, node(250));
        table.remove(node(200));
        assertEquals(node(250), table.successor());
    }

    @Test
    void aHintFillsTheFingerWhoseIntervalHoldsItOnlyWhenThatFingerIsUnknown() {
        var table = new FingerTable(node(0), 4);
        table.hint(node(5)); // 5 lies in [2^2, 2^3)
        assertEquals(node(5), table.finger(2));
        table.hint(node(6));
        assertEquals(node(5), table.finger(2), "a known finger is kept");
        assertNull(table.finger(3));
        assertEquals(List.of(node(5)), table.closestPreceding(key(7), 3));
    }
}
