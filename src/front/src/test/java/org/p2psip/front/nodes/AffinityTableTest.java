package org.p2psip.front.nodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class AffinityTableTest {

    private final Node a = new Node(0, new InetSocketAddress("127.0.0.1", 5070));
    private final Node b = new Node(1, new InetSocketAddress("127.0.0.1", 5071));

    @Test
    void aCallIdKeepsItsNodeWhileUsedWithinTheTimeToLive() {
        var table = new AffinityTable(100, 10);
        table.assign("x", a, 0);
        assertSame(a, table.nodeOf("x", 90));
        assertSame(a, table.nodeOf("x", 180), "each use restarts the time to live");
        assertNull(table.nodeOf("x", 281));
        assertEquals(0, table.size());
    }

    @Test
    void theSweepForgetsExpiredEntriesAndEndsTheirCalls() {
        var table = new AffinityTable(100, 10);
        table.assign("old", a, 0);
        table.callStarted("old");
        table.assign("new", b, 50);
        assertEquals(1, a.calls());
        table.sweep(120);
        assertEquals(1, table.size());
        assertEquals(0, a.calls(), "a forgotten call no longer counts");
        assertSame(b, table.nodeOf("new", 120));
    }

    @Test
    void theTableNeverHoldsMoreThanItsBoundAndForgetsTheLeastRecentlyUsed() {
        var table = new AffinityTable(Long.MAX_VALUE, 3);
        for (int i = 0; i < 100; i++) {
            table.assign("c" + i, a, i);
            table.callStarted("c" + i);
            table.nodeOf("c0", i); // kept in use
        }
        assertEquals(3, table.size());
        assertSame(a, table.nodeOf("c0", 100));
        assertNull(table.nodeOf("c50", 100));
        assertEquals(3, a.calls(), "the calls of evicted Call-IDs are ended");
    }

    @Test
    void aCallIsCountedOnceAndEndedOnce() {
        var table = new AffinityTable(1000, 10);
        table.assign("x", a, 0);
        table.callStarted("x");
        table.callStarted("x"); // a retransmitted INVITE
        assertEquals(1, a.calls());
        table.callEnded("x");
        table.callEnded("x");
        assertEquals(0, a.calls());
    }
}
