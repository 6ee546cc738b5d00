package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.config.NodeOptions;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;

/**
 * A node says it is settled only when the ring around it holds still: a joining node once its
 * successor names it as predecessor and its range has been handed to it, so that a node that
 * opens to clients then serves every record it owns from its own store at once.
 */
class SettledTest {

    private static final int AORS = 2_000;
    private final Clock clock = Clock.systemUTC();
    private Ring ring;

    @AfterEach
    void close() {
        ring.close();
    }

    @Test
    void aJoiningNodeIsSettledOnlyWithItsSuccessorAgreedAndItsRangeHandedIn() {
        ring = Ring.of(3, clock);
        writeAll();
        String address = "joiner:6070";
        List<Id> ids = new ArrayList<>(ring.nodes.stream().map(n -> n.self().id()).toList());
        ids.add(Id.hash(address));
        ids.sort(null);
        List<String> owned = new ArrayList<>();
        for (int i = 0; i < AORS; i++) {
            Id key = Id.hash(aor(i));
            Id owner = ids.stream().filter(id -> id.compareTo(key) >= 0).findFirst().orElse(ids.get(0));
            if (owner.equals(Id.hash(address))) {
                owned.add(aor(i));
            }
        }
        assertTrue(!owned.isEmpty(), "the joiner should own some of " + AORS + " keys");

        ChordDht joiner = ring.add(address);
        // asked on the node's loop the moment it is settled, before anything else it would do next
        var held = joiner.settled().thenCompose(settled -> Ring.holds(joiner, owned));
        assertEquals(owned.size(), Ring.get(held), "records the settled joiner holds of the " + owned.size() + " it owns");
        NodeRef successor = ring.owner(joiner.self().id().plusPowerOfTwo(0));
        assertEquals(successor, Ring.get(Ring.neighbours(joiner)).successors().get(0), "the joiner's successor");
    }

    @Test
    void aNodeAloneByDesignIsSettledAtOnce() {
        ring = Ring.of(1, clock);
        Ring.get(ring.nodes.get(0).settled());
    }

    @Test
    void aFounderWhoseMembersAreNotUpYetIsSettledAlone() {
        ring = new Ring(clock, false).with(NodeOptions.OVERLAY_MEMBERS.name(), "founder:6070,absent-1:6070,absent-2:6070");
        ChordDht founder = ring.add("founder:6070", "");
        Ring.get(founder.settled());
    }

    private void writeAll() {
        List<CompletableFuture<Boolean>> puts = new ArrayList<>();
        for (int i = 0; i < AORS; i++) {
            var binding = new Binding(aor(i), "sip:u" + i + "@10.1.0.1", 4_102_444_800_000L, Binding.Q_UNSPECIFIED,
                    "call-" + i, 1, List.of(), "", 0);
            puts.add(ring.nodes.get(i % 3).put(new BindingSet(aor(i), 0, clock.millis() + 86_400_000, List.of(binding)))
                    .toCompletableFuture());
        }
        puts.forEach(put -> assertTrue(Ring.get(put), "a put on a fresh AOR is stored"));
    }

    private static String aor(int i) {
        return "sip:settled" + i + "@chord.example.com";
    }
}
