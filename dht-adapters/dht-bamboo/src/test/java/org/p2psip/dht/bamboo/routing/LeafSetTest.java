package org.p2psip.dht.bamboo.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.ring.Id;

class LeafSetTest {

    private static NodeHandle node(long position) {
        return new NodeHandle(Id.around(BigInteger.valueOf(position).shiftLeft(100)), "n" + position);
    }

    @Test
    void itKeepsTheNearestOnEachSideAndCoversOnlyTheArcBetweenItsEnds() {
        var leafSet = new LeafSet(node(100), 2);
        for (long p : new long[] {90, 95, 105, 110, 80, 120}) {
            leafSet.add(node(p));
        }
        assertEquals(Set.of(node(95), node(90), node(105), node(110)), Set.copyOf(leafSet.members()));
        assertFalse(leafSet.accepts(node(130)), "farther than both sides' ends");
        assertTrue(leafSet.accepts(node(102)));
        assertTrue(leafSet.covers(node(108).id()));
        assertFalse(leafSet.covers(node(115).id()));
        assertEquals(node(105), leafSet.closest(node(106).id()));
        assertEquals(List.of(node(100), node(105), node(95)), leafSet.nearest(node(101).id(), 3));
    }

    @Test
    void aSideWithRoomMeansTheWholeOverlayIsKnown() {
        var leafSet = new LeafSet(node(100), 4);
        leafSet.add(node(10));
        assertTrue(leafSet.covers(node(5000).id()));
        assertTrue(leafSet.remove(node(10).id()));
        assertEquals(node(100), leafSet.closest(node(7).id()), "alone, a node is every key's root");
    }
}
