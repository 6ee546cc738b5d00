package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.ring.Id;

/**
 * The copies a node's places send to one other node share one frame in flight: those that wait
 * meanwhile leave together in a COPIES frame, and each reaches the place it was for.
 */
class NodeCopiesTest {

    private static final int AORS = 2000;
    private final Clock clock = Clock.systemUTC();

    @Test
    void copiesForPlacesOfOneNodeShareFramesAndEachReachesItsPlace() {
        try (Ring ring = new Ring(clock, false).with(ChordOptions.PLACES.name(), "8")
                .with(ChordOptions.STABILIZE_IDLE_INTERVAL.name(), "250ms")) {
            writeThroughOneOfTwo(ring);
        }
    }

    private void writeThroughOneOfTwo(Ring ring) {
        ring.add();
        ring.add();
        Ring.awaitTrue("two nodes of 8 places own the ring", () -> ring.nodes.stream()
                .mapToLong(n -> n.metrics().get("chord.range.ppm")).filter(p -> p > 0).count() == 2
                && ring.nodes.stream().mapToLong(n -> n.metrics().get("chord.range.ppm")).sum() > Id.PPM - 16,
                Duration.ofSeconds(60));
        ring.nodes.forEach(n -> Ring.get(n.settled()));
        ring.awaitViews(); // COPIES go to a node known to gossip: one of this build
        ChordDht entry = ring.nodes.get(0);

        var puts = new ArrayList<CompletableFuture<Boolean>>();
        for (int i = 0; i < AORS; i++) {
            String aor = "sip:copy" + i + "@copies.example.com";
            puts.add(entry.put(new BindingSet(aor, 0, clock.millis() + 86_400_000, List.of(binding(aor, i))))
                    .toCompletableFuture());
        }
        assertEquals(AORS, puts.stream().filter(Ring::get).count(), "every put acknowledged: each replica took its copy");

        var both = ring.nodes.stream().mapToLong(n -> n.metrics().get("chord.copy-frames")).sum();
        var stores = ring.nodes.stream().mapToLong(n -> n.metrics().get("chord.copy-frame.stores")).sum();
        assertTrue(stores > both, "some frame carried the STOREs of several places: " + stores + " in " + both);
        for (ChordDht node : ring.nodes) {
            Ring.awaitTrue(node.self() + " holds a copy of every record", () -> held(node) == AORS,
                    Duration.ofSeconds(10));
        }
    }

    /** How many of the AORs any place of {@code node} holds, counted in one step of its loop (two nodes: each holds every record). */
    private static long held(ChordDht node) {
        ChordNode first = Ring.first(node);
        return Ring.get(first.ringLoop().call(() -> {
            long count = 0;
            for (int i = 0; i < AORS; i++) {
                Id key = Id.hash("sip:copy" + i + "@copies.example.com");
                if (Ring.places(node).stream().anyMatch(place -> place.store().record(key) != null)) {
                    count++;
                }
            }
            return CompletableFuture.completedFuture(count);
        }, "test"));
    }

    private static Binding binding(String aor, int i) {
        return new Binding(aor, "sip:copy" + i + "@10.0.0.1", 4_102_444_800_000L, Binding.Q_UNSPECIFIED,
                "call-" + i, 1, List.of(), "", 0);
    }
}
