package org.p2psip.dht.bamboo.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.ring.Id;

class RouterTest {

    /** A node whose id's first byte is {@code top}. */
    private static NodeHandle node(int top) {
        return new NodeHandle(Id.around(BigInteger.valueOf(top).shiftLeft(152)), "n" + top);
    }

    @Test
    void aHopThatDidNotAnswerIsRoutedAroundThroughAnotherKnownNodeNearerTheKey() {
        NodeHandle self = node(0x00);
        var leafSet = new LeafSet(self, 1);
        leafSet.add(node(0x01));
        leafSet.add(node(0xFE));
        var table = new RoutingTable(self, 4);
        NodeHandle entry = node(0x80);
        NodeHandle other = node(0x90);
        table.add(entry);
        table.add(other);
        var router = new Router(self, leafSet, table);
        Id key = node(0x85).id();

        assertEquals(entry, router.next(key).node(), "the table's entry for the key's first digit");
        assertEquals(entry, router.next(key, Set.of()).node(), "nothing to avoid: the same choice");
        assertEquals(other, router.next(key, Set.of(entry.id())).node(),
                "with the entry avoided, the known node nearest the key with as long a prefix");
    }

    @Test
    void aCoveredKeysRootIsTheLeafSetsToJudgeEvenWhenItDidNotAnswerALookup() {
        NodeHandle self = node(0x00);
        var leafSet = new LeafSet(self, 2);
        NodeHandle root = node(0x10);
        leafSet.add(root);
        leafSet.add(node(0x20));
        leafSet.add(node(0xF0));
        leafSet.add(node(0xE0));
        var router = new Router(self, leafSet, new RoutingTable(self, 4));
        assertEquals(new Router.Step(root, true), router.next(node(0x11).id(), Set.of(root.id())));
    }
}
