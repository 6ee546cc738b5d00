package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Dht;

/**
 * Eight peers: every resource lands on the peer responsible for its ID; two neighbouring peers
 * crash and nothing registered is lost once the ring has repaired; a newcomer takes over what it
 * is now responsible for.
 */
class ChurnTest {

    private static final int AORS = 200;
    private Peers ring;

    @AfterEach
    void stop() {
        if (ring != null) {
            ring.close();
        }
    }

    @Test
    void resourcesLandOnTheirPeerSurviveTwoCrashesAndMoveToANewcomer() throws Exception {
        ring = Peers.ring(8, Clock.systemUTC());
        var writes = new ArrayList<CompletableFuture<Boolean>>();
        for (int i = 0; i < AORS; i++) {
            Dht through = ring.live.get(i % ring.live.size());
            writes.add(through.put(set(aor(i))).toCompletableFuture());
        }
        for (var write : writes) {
            assertTrue(write.get(20, TimeUnit.SECONDS));
        }
        everyResourceIsHeldByItsResponsiblePeer();

        // two neighbours at once: a resource's responsible peer and its first replica
        List<BryanDht> sorted = ring.live.stream().sorted(Comparator.comparing(p -> p.self().id())).toList();
        ring.crash(sorted.get(3));
        ring.crash(sorted.get(4));
        ring.awaitStable();
        Peers.await(this::everyResourceHeldByItsResponsiblePeer, "every resource back on its responsible peer");
        everyResourceIsReadableThrough(ring.live.get(ring.live.size() - 1));

        BryanDht newcomer = ring.add(25240);
        ring.awaitStable();
        long owned = java.util.stream.IntStream.range(0, AORS).filter(i -> ring.responsibleFor(aor(i)) == newcomer).count();
        Peers.await(this::everyResourceHeldByItsResponsiblePeer, "the newcomer to hold its " + owned + " resources");
        everyResourceIsReadableThrough(newcomer);
    }

    private void everyResourceIsHeldByItsResponsiblePeer() {
        for (int i = 0; i < AORS; i++) {
            BryanDht responsible = ring.responsibleFor(aor(i));
            assertTrue(Peers.holds(responsible, aor(i)), aor(i) + " is not held by its responsible peer " + responsible.self());
        }
    }

    private boolean everyResourceHeldByItsResponsiblePeer() {
        for (int i = 0; i < AORS; i++) {
            if (!Peers.holds(ring.responsibleFor(aor(i)), aor(i))) {
                return false;
            }
        }
        return true;
    }

    private void everyResourceIsReadableThrough(Dht reader) throws Exception {
        for (int i = 0; i < AORS; i++) {
            BindingSet got = reader.get(aor(i)).toCompletableFuture().get(20, TimeUnit.SECONDS);
            assertEquals(List.of("sip:u" + i + "@10.0.0.1"), got.bindings().stream().map(Binding::contact).toList(), aor(i));
        }
    }

    private static String aor(int i) {
        return "sip:u" + i + "@example.com";
    }

    private static BindingSet set(String aor) {
        long now = System.currentTimeMillis();
        String contact = aor.replace("@example.com", "@10.0.0.1");
        return new BindingSet(aor, 0, now + 86_400_000L,
                List.of(new Binding(aor, contact, now + 3_600_000L, 1000, "call-" + aor, 1, List.of(), "", 0)));
    }
}
