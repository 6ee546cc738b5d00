package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.FingerTable;

/**
 * Where a peer sends a key it does not own: the peers a 302 names, the owner-to-be first and those
 * who would take over if it were silent after it; and around the peers a call found silent.
 */
class LinksTest {

    private static NodeRef node(long id) {
        return new NodeRef(key(id), "10.0.0." + (id % 250) + ":" + (5000 + id % 1000));
    }

    private static Id key(long id) {
        return new Id(BigInteger.valueOf(id));
    }

    /** Peer 10000 with predecessor 9000, successors 11000, 12000, 13000 and fingers 20000, 50000. */
    private static Links links() {
        var table = new FingerTable(node(10_000), 3);
        table.predecessor(node(9_000));
        table.successors(List.of(node(11_000), node(12_000), node(13_000)));
        table.finger(10, node(20_000));
        table.finger(12, node(50_000));
        return new Links(table);
    }

    @Test
    void aRedirectNamesTheOwnerFirstThenTheSuccessorsThatWouldTakeOver() {
        assertEquals(List.of(node(12_000), node(13_000), node(11_000)), links().nextHops(key(11_500)));
    }

    @Test
    void aKeyBeyondTheSuccessorsGoesToTheKnownPeersClosestBeforeIt() {
        assertEquals(List.of(node(20_000), node(13_000), node(12_000)), links().nextHops(key(30_000)));
    }

    @Test
    void aCallRoutesAroundThePeersThatDidNotAnswerIt() {
        Links links = links();
        assertEquals(node(12_000), links.nextHop(key(11_500)));
        assertEquals(node(13_000), links.nextHop(key(11_500), Set.of(node(12_000))),
                "the successor after a silent owner-to-be takes its keys over");
        assertEquals(node(13_000), links.nextHop(key(30_000), Set.of(node(20_000))));
    }

}
