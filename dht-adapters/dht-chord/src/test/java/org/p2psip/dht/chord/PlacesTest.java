package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;

/**
 * Nodes that take several places on the ring: their places together own the whole ring once it
 * settled, a whole node's crash (all its places at once) loses no acknowledged record, and the
 * node restarted on its address takes its places back.
 */
class PlacesTest {

    private static final int PLACES = 8;
    private static final int AORS = 2000;
    private final Clock clock = Clock.systemUTC();
    private Ring ring;

    @AfterEach
    void close() {
        ring.close();
    }

    @Test
    void fourNodesWithEightPlacesEachOwnTheWholeRingBetweenThem() {
        ring = ringOfFour();
        long sum = ring.nodes.stream().mapToLong(n -> n.metrics().get("chord.range.ppm")).sum();
        assertTrue(sum <= Id.PPM && sum > Id.PPM - 4 * PLACES, "the nodes' shares add up to the ring: " + sum);
        ring.nodes.forEach(n -> assertEquals(PLACES, n.metrics().get("chord.places")));
    }

    @Test
    void aWholeNodeCrashedLosesNoAcknowledgedRecordAndTakesItsPlacesBackWhenRestarted() {
        ring = ringOfFour();
        List<String> written = writeAll();
        assertEquals(AORS, written.size(), "every put on a fresh AOR is acknowledged on a quiet ring");

        ChordDht victim = ring.nodes.get(2);
        String address = victim.self().address();
        victim.crash();
        ring.nodes.remove(victim);
        ring.awaitWholeRing(PLACES);
        for (ChordDht through : ring.nodes) {
            assertAllReadable(through, written);
        }

        ChordDht again = ring.add(address);
        ring.awaitWholeRing(PLACES);
        for (ChordDht place : List.of(again)) {
            for (ChordNode p : Ring.places(place)) {
                NodeRef owner = Ring.get(Ring.lookup(ring.nodes.get(0), p.self().id())).owner();
                assertEquals(p.self(), owner, "the restarted node's place owns its own id again");
            }
        }
        Ring.awaitTrue("the restarted node holds records again", () -> again.metrics().get("chord.records") > 0,
                Duration.ofSeconds(20));
        for (ChordDht through : ring.nodes) {
            assertAllReadable(through, written);
        }
    }

    /** Four in-process nodes of {@link #PLACES} places, joined through the first, settled. */
    private Ring ringOfFour() {
        var four = new Ring(clock, false).with(ChordOptions.PLACES.name(), String.valueOf(PLACES));
        ring = four;
        for (int i = 0; i < 4; i++) {
            four.add();
        }
        ring.awaitWholeRing(PLACES);
        return four;
    }

    /** Puts {@link #AORS} fresh AORs through the nodes in turn; returns those acknowledged. */
    private List<String> writeAll() {
        var puts = new ArrayList<CompletableFuture<Boolean>>();
        for (int i = 0; i < AORS; i++) {
            ChordDht through = ring.nodes.get(i % ring.nodes.size());
            puts.add(through.put(new BindingSet(aor(i), 0, clock.millis() + 86_400_000, List.of(binding(i))))
                    .toCompletableFuture());
        }
        var acknowledged = new ArrayList<String>();
        for (int i = 0; i < AORS; i++) {
            if (Ring.get(puts.get(i))) {
                acknowledged.add(aor(i));
            }
        }
        return acknowledged;
    }

    /** Every AOR of {@code aors} reads back through {@code through}, repeated while the ring repairs. */
    private void assertAllReadable(ChordDht through, List<String> aors) {
        var missing = new ArrayList<String>();
        Ring.awaitTrue("every acknowledged record readable through " + through.self(), () -> {
            missing.clear();
            var gets = aors.stream().map(aor -> through.get(aor).toCompletableFuture()).toList();
            for (int i = 0; i < gets.size(); i++) {
                try {
                    if (gets.get(i).get().bindings().size() != 1) {
                        missing.add(aors.get(i));
                    }
                } catch (Exception e) {
                    missing.add(aors.get(i) + " (" + e.getCause() + ")");
                }
            }
            return missing.isEmpty();
        }, Duration.ofSeconds(60));
    }

    private static String aor(int i) {
        return "sip:user" + i + "@places.example.com";
    }

    private Binding binding(int i) {
        return new Binding(aor(i), "sip:user" + i + "@10.0." + (i / 250) + "." + (i % 250), 4_102_444_800_000L,
                Binding.Q_UNSPECIFIED, "call-" + i, 1, List.of(), "", 0);
    }
}
