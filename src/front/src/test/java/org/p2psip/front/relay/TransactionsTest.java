package org.p2psip.front.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.p2psip.front.nodes.Node;
import org.p2psip.front.wire.Destination;

class TransactionsTest {

    private final Node a = new Node(0, new InetSocketAddress("127.0.0.1", 5070));
    private final Node b = new Node(1, new InetSocketAddress("127.0.0.1", 5071));

    private Transactions.Open open(Node node, boolean invite, long start) {
        return new Transactions.Open(node, invite, null, Destination.UDP, start);
    }

    @Test
    void aTransactionCountsOnItsNodeOnceFromSendToFinalAnswer() {
        var table = new Transactions(10);
        assertEquals(Transactions.Start.STARTED, table.start("x INVITE", open(a, true, 0)));
        assertEquals(Transactions.Start.RETRANSMISSION, table.start("x INVITE", open(a, true, 1)));
        assertEquals(Transactions.Start.STARTED, table.start("x CANCEL", open(a, false, 2)));
        assertEquals(1, a.invites());
        assertEquals(1, a.others());
        table.provisional("x INVITE");
        assertSame(a, table.finish("x INVITE").node);
        assertNull(table.finish("x INVITE"), "a retransmitted final answer ends nothing");
        assertEquals(0, a.invites());
    }

    @Test
    void pastItsBoundTheTableRefusesNewTransactions() {
        var table = new Transactions(2);
        table.start("1 REGISTER", open(a, false, 0));
        table.start("2 REGISTER", open(a, false, 0));
        assertEquals(Transactions.Start.FULL, table.start("3 REGISTER", open(a, false, 0)));
        assertEquals(Transactions.Start.RETRANSMISSION, table.start("2 REGISTER", open(a, false, 0)));
        assertEquals(2, table.size());
        assertEquals(2, a.others());
    }

    @Test
    void transactionsPastTheirTimeOutAreForgottenAndAnsweredInvitesLiveLonger() {
        var table = new Transactions(10);
        table.start("r REGISTER", open(a, false, 0));
        table.start("i INVITE", open(a, true, 0));
        table.start("ringing INVITE", open(a, true, 0));
        table.provisional("ringing INVITE");
        assertEquals(0, table.expire(100, 100, 1000));
        assertEquals(2, table.expire(101, 100, 1000), "the REGISTER and the unanswered INVITE");
        assertEquals(1, a.invites(), "the ringing INVITE waits for Timer C");
        assertEquals(1, table.expire(1001, 100, 1000));
        assertEquals(0, a.transactions());
    }

    @Test
    void abandoningANodeTakesOnlyItsTransactions() {
        var table = new Transactions(10);
        table.start("1 INVITE", open(a, true, 0));
        table.start("2 MESSAGE", open(a, false, 0));
        table.start("3 INVITE", open(b, true, 0));
        assertEquals(2, table.abandon(a, 0).size());
        assertEquals(0, a.transactions());
        assertEquals(1, b.transactions());
        assertEquals(1, table.size());
    }

    @Test
    void aLateFinalAnswerOfAnAbandonedRequestIsRecognisedOnceUntilTheTimeOut() {
        var table = new Transactions(10);
        table.start("1 MESSAGE", open(a, false, 0));
        table.start("2 MESSAGE", open(a, false, 0));
        table.start("3 INVITE", open(a, true, 0));
        table.abandon(a, 50);
        assertTrue(table.answeredAlready("1 MESSAGE"));
        assertFalse(table.answeredAlready("1 MESSAGE"), "a retransmitted answer is no longer recognised");
        assertFalse(table.answeredAlready("3 INVITE"), "a late 2xx of an INVITE goes on to its caller");
        assertFalse(table.answeredAlready("4 MESSAGE"), "never open");
        table.expire(151, 100, 1000);
        assertFalse(table.answeredAlready("2 MESSAGE"), "forgotten after the transaction time-out");
    }
}
