package org.p2psip.dht.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.ring.Members.Member;

/** The view of every node of a small ring: what it maps keys to, and how gossip keeps it. */
class MembersTest {

    private static final long ROUND = 1_000_000_000L;
    private static final int PLACES = 8;
    private static final int KEYS = 10_000;
    private static final String SELF = "10.0.0.1:6070";
    private long now;

    private Members view(int maxNodes) {
        return new Members(member(SELF, 1), maxNodes, ROUND, () -> now, 1);
    }

    private static Member member(String address, long heartbeat) {
        return new Member(address, PLACES, Id.hash(address), heartbeat);
    }

    private static String address(int i) {
        return "10.0.0." + i + ":6070";
    }

    /** Members 2..n, each at {@code heartbeat}. */
    private static List<Member> others(int n, long heartbeat) {
        var members = new ArrayList<Member>();
        for (int i = 2; i <= n; i++) {
            members.add(member(address(i), heartbeat));
        }
        return members;
    }

    /** The node each of {@link #KEYS} keys maps to. */
    private static Map<Id, String> owners(Members view) {
        var owners = new HashMap<Id, String>();
        for (int i = 0; i < KEYS; i++) {
            Id key = Id.hash("sip:user" + i + "@example.com");
            NodeRef owner = view.owner(key);
            assertNotNull(owner, "a whole small view maps every key");
            owners.put(key, owner.address());
        }
        return owners;
    }

    @Test
    void aKeyMapsToTheFirstPlaceAtOrAfterItAmongEveryMembersPlaces() {
        Members view = view(64);
        view.merge(others(4, 5), false);
        var all = new ArrayList<NodeRef>();
        for (int i = 1; i <= 4; i++) {
            for (Id id : VirtualNodes.ids(address(i), PLACES)) {
                all.add(new NodeRef(id, address(i)));
            }
        }
        all.sort(java.util.Comparator.comparing(NodeRef::id));
        for (int i = 0; i < 1000; i++) {
            Id key = Id.hash("key" + i);
            NodeRef expected = all.stream().filter(n -> n.id().compareTo(key) >= 0).findFirst().orElse(all.get(0));
            assertEquals(expected, view.owner(key), "the ring's owner of " + key + " is its successor place");
        }
    }

    @Test
    void aJoiningMemberTakesOnlyKeysOfItsOwnPlacesAndItsLeaveGivesThemBack() {
        Members view = view(64);
        view.merge(others(8, 5), false);
        Map<Id, String> before = owners(view);

        view.merge(List.of(member(address(9), 5)), false);
        Map<Id, String> after = owners(view);
        int moved = 0;
        for (Id key : before.keySet()) {
            if (!before.get(key).equals(after.get(key))) {
                assertEquals(address(9), after.get(key), "a key that moved went to the new member");
                moved++;
            }
        }
        assertTrue(moved > KEYS / 30 && moved < KEYS / 4, "the new member took about a ninth of the keys: " + moved);

        view.forget(address(9));
        assertEquals(before, owners(view), "its leave gives every key back to its former owner");
    }

    @Test
    void theHigherHeartbeatWinsAndAForgottenMemberComesBackOnlyWithANewerOne() {
        Members view = view(64);
        view.merge(others(3, 5), false);
        view.forget(address(3));
        assertEquals(2, view.size());

        view.merge(List.of(member(address(3), 5)), false);
        assertEquals(2, view.size(), "an old copy of a forgotten member does not bring it back");

        view.merge(List.of(member(address(3), 6)), false);
        assertEquals(3, view.size(), "a newer heartbeat does: the member lives");
    }

    @Test
    void aMemberWhoseHeartbeatStopsRisingIsForgottenAfterTheExpiry() {
        Members view = view(64);
        view.merge(others(3, 5), false);
        for (int round = 1; round <= Members.EXPIRY_ROUNDS + 1; round++) {
            now += ROUND;
            view.merge(List.of(member(address(2), 5 + round)), false);
            view.beat(round, PLACES);
        }
        assertEquals(2, view.size(), "the silent member is forgotten, the beating one kept");
        for (int i = 0; i < 100; i++) {
            assertFalse(view.owner(Id.hash("k" + i)).address().equals(address(3)));
        }
    }

    @Test
    void theKeysOfASuspectedMemberAreLeftToTheRingUntilItIsHeardFromDirectly() {
        Members view = view(64);
        view.merge(others(3, 5), false);
        Map<Id, String> before = owners(view);
        view.suspect(address(2));
        for (var owned : before.entrySet()) {
            NodeRef now = view.owner(owned.getKey());
            if (owned.getValue().equals(address(2))) {
                assertNull(now, "a suspect's key is looked up through the ring");
            } else {
                assertEquals(owned.getValue(), now.address(), "the other keys stay where they were");
            }
        }

        view.merge(List.of(member(address(2), 6)), false);
        assertNull(view.owner(keyOf(before, address(2))), "a risen heartbeat is no sign of life: a crashed"
                + " member's last beats still travel from view to view");

        view.heardFrom(address(2));
        assertEquals(before, owners(view), "a swap with the member itself clears the suspicion");
    }

    private static Id keyOf(Map<Id, String> owners, String address) {
        return owners.entrySet().stream().filter(e -> e.getValue().equals(address)).findFirst().orElseThrow().getKey();
    }

    @Test
    void aMemberLearntFromTheRingLeavesTheViewIncompleteUntilGossipNamesItsPlaces() {
        Members view = view(64);
        view.merge(others(3, 5), false);
        view.learn(address(4));
        assertEquals(4, view.size());
        assertNull(view.owner(Id.hash("k")), "a member whose places are unknown: the view routes nothing");
        assertFalse(view.gossips(address(4)));

        view.merge(List.of(member(address(4), 5)), false);
        assertNotNull(view.owner(Id.hash("k")));
        assertTrue(view.gossips(address(4)), "gossip named it: it runs a build that keeps a view");

        view.forget(address(4));
        view.learn(address(4));
        assertEquals(4, view.size(), "the ring names a member forgotten lately (a partition healed)");
        assertNull(view.owner(Id.hash("k")), "and until gossip names its places again, the view routes nothing");
    }

    @Test
    void moreMembersThanMaxNodesRouteNothingAndSendNothingUntilTheHoldPasses() {
        Members view = view(3);
        view.merge(others(6, 5), false);
        assertEquals(4, view.size(), "the view holds max-nodes + 1 members at most");
        assertTrue(view.isLarge());
        assertNull(view.owner(Id.hash("k")), "above max-nodes, operations take the iterative lookup");
        assertTrue(view.entries().isEmpty(), "a large overlay's node gossips nothing");
        assertNull(view.gossipTarget());

        view.forget(address(4));
        assertNull(view.owner(Id.hash("k")), "still held as large");
        now += Members.LARGE_HOLD_ROUNDS * ROUND + 1;
        assertNotNull(view.owner(Id.hash("k")), "after the hold, a small view routes again");
        assertFalse(view.isLarge());
    }

    @Test
    void aSenderThatKeepsNoViewMakesThisOneLargeToo() {
        Members view = view(64);
        view.merge(others(3, 5), false);
        view.merge(List.of(), true);
        assertTrue(view.isLarge());
        assertNull(view.owner(Id.hash("k")));
    }

    @Test
    void itsOwnOlderLifeRaisesItsHeartbeatAboveIt() {
        Members view = view(64);
        view.merge(List.of(member(SELF, 1_000)), false);
        assertTrue(view.self().heartbeat() > 1_000, "a peer's copy of this node's previous life is overtaken");
    }

    @Test
    void maxNodesZeroNeverRoutesAndANegativeOneIsRefused() {
        Members off = view(0);
        off.merge(others(3, 5), false);
        assertEquals(1, off.size());
        assertNull(off.owner(Id.hash("k")));
        assertThrows(IllegalArgumentException.class, () -> view(-1));
    }
}
