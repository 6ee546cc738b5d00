package org.p2psip.front.policies;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.p2psip.front.nodes.Node;

/** Each policy's choice on scripted sequences of load. */
class PolicyTest {

    private static List<Node> nodes(int n) {
        var list = new ArrayList<Node>();
        for (int i = 0; i < n; i++) {
            list.add(new Node(i, new InetSocketAddress("127.0.0.1", 5070 + i)));
        }
        return list;
    }

    @Test
    void roundRobinTakesEachNodeInTurn() {
        List<Node> nodes = nodes(3);
        Policy rr = Policies.named("rr", 1.75);
        var chosen = new ArrayList<Integer>();
        for (int i = 0; i < 7; i++) {
            chosen.add(rr.choose(nodes, "call-" + i).index());
        }
        assertEquals(List.of(0, 1, 2, 0, 1, 2, 0), chosen);
    }

    @Test
    void hashMapsACallIdToOneNodeAndMovesOnlyTheCallIdsOfANodeThatLeaves() {
        List<Node> nodes = nodes(4);
        Policy hash = Policies.named("hash", 1.75);
        var before = new HashMap<String, Node>();
        var perNode = new int[4];
        for (int i = 0; i < 400; i++) {
            Node node = hash.choose(nodes, "call-" + i);
            assertSame(node, hash.choose(nodes, "call-" + i), "the same Call-ID must map to the same node");
            before.put("call-" + i, node);
            perNode[node.index()]++;
        }
        for (int count : perNode) {
            assertTrue(count > 50, "each of 4 nodes should get a share of 400 Call-IDs, got " + count);
        }
        List<Node> without2 = List.of(nodes.get(0), nodes.get(1), nodes.get(3));
        for (Map.Entry<String, Node> e : before.entrySet()) {
            Node after = hash.choose(without2, e.getKey());
            if (e.getValue().index() != 2) {
                assertSame(e.getValue(), after, e.getKey() + " moved though its node stayed up");
            } else {
                assertNotEquals(2, after.index());
            }
        }
    }

    @Test
    void cjsqChoosesTheNodeWithFewestCallsWhateverItsTransactions() {
        List<Node> nodes = nodes(3);
        nodes.get(0).callStarted();
        nodes.get(0).callStarted();
        nodes.get(1).callStarted();
        nodes.get(2).callStarted();
        nodes.get(2).callStarted();
        for (int i = 0; i < 5; i++) {
            nodes.get(1).transactionStarted(false); // busy with transactions, but fewest calls
        }
        Policy cjsq = Policies.named("cjsq", 1.75);
        assertEquals(1, cjsq.choose(nodes, "c").index());
        nodes.get(1).callStarted();
        nodes.get(1).callStarted();
        nodes.get(0).callEnded();
        assertEquals(0, cjsq.choose(nodes, "c").index());
    }

    @Test
    void tjsqChoosesTheNodeWithFewestOpenTransactionsOfAnyMethod() {
        List<Node> nodes = nodes(2);
        nodes.get(0).transactionStarted(true);
        nodes.get(1).transactionStarted(false);
        nodes.get(1).transactionStarted(false);
        Policy tjsq = Policies.named("tjsq", 1.75);
        assertEquals(0, tjsq.choose(nodes, "c").index(), "1 INVITE is fewer transactions than 2 REGISTERs");
        nodes.get(1).transactionEnded(false);
        nodes.get(1).transactionEnded(false);
        assertEquals(1, tjsq.choose(nodes, "c").index());
    }

    @Test
    void tlwlWeighsAnInviteAboveOtherTransactions() {
        List<Node> nodes = nodes(2);
        nodes.get(0).transactionStarted(true);
        nodes.get(0).transactionStarted(true); // 2 x 1.75 = 3.5
        for (int i = 0; i < 3; i++) {
            nodes.get(1).transactionStarted(false); // 3
        }
        assertEquals(1, Policies.named("tlwl", 1.75).choose(nodes, "c").index());
        assertEquals(0, Policies.named("tjsq", 1.75).choose(nodes, "c").index(), "by count alone node 0 is less loaded");
        assertEquals(0, Policies.named("tlwl", 1.4).choose(nodes, "c").index(), "with weight 1.4, 2.8 < 3");
    }

    @Test
    void joinShortestQueuePoliciesShareTiesInTurn() {
        List<Node> nodes = nodes(3);
        for (String name : List.of("cjsq", "tjsq", "tlwl")) {
            Policy policy = Policies.named(name, 1.75);
            var seen = new int[3];
            for (int i = 0; i < 30; i++) {
                seen[policy.choose(nodes, "c" + i).index()]++;
            }
            assertEquals(List.of(10, 10, 10), List.of(seen[0], seen[1], seen[2]), name + " on idle nodes");
        }
    }

    /**
     * Heterogeneous nodes: node 0 finishes three transactions a tick, node 1 one. Two INVITEs and
     * two REGISTERs arrive each tick; TLWL must give the fast node most of them, as round robin
     * (half each) does not.
     */
    @Test
    void tlwlSendsMoreWorkToAFasterNode() {
        Map<Integer, Integer> tlwl = simulate(Policies.named("tlwl", 1.75));
        Map<Integer, Integer> rr = simulate(Policies.named("rr", 1.75));
        assertEquals(rr.get(0), rr.get(1), "round robin ignores speed");
        assertTrue(tlwl.get(0) > 2 * tlwl.get(1), "tlwl: fast node got " + tlwl.get(0) + ", slow " + tlwl.get(1));
    }

    private static Map<Integer, Integer> simulate(Policy policy) {
        List<Node> nodes = nodes(2);
        int[] speed = {3, 1};
        List<ArrayDeque<Boolean>> queues = List.of(new ArrayDeque<>(), new ArrayDeque<>());
        var assigned = new HashMap<Integer, Integer>(Map.of(0, 0, 1, 0));
        for (int tick = 0; tick < 200; tick++) {
            for (int k = 0; k < 4; k++) {
                boolean invite = k % 2 == 0;
                Node node = policy.choose(nodes, "call-" + tick + "-" + k);
                node.transactionStarted(invite);
                queues.get(node.index()).add(invite);
                assigned.merge(node.index(), 1, Integer::sum);
            }
            for (Node node : nodes) {
                for (int s = 0; s < speed[node.index()] && !queues.get(node.index()).isEmpty(); s++) {
                    node.transactionEnded(queues.get(node.index()).poll()); // a final answer seen
                }
            }
        }
        return assigned;
    }

    @Test
    void anUnknownPolicyNameIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Policies.named("random", 1.75));
        assertThrows(IllegalArgumentException.class, () -> Policies.named("tlwl", 0));
    }
}
