package org.p2psip.dht.bamboo;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Dht;
import org.p2psip.dht.ring.Id;

/**
 * An overlay split in two (one node silenced from the others), each side the root of every AOR
 * and acknowledging writes to it, then reachable again: the node left alone rejoins by itself, and
 * the changes each side made to the same AORs meanwhile are merged contact by contact at the heal,
 * none lost, and read alike through every node.
 */
class PartitionTest {

    private static final int AORS = 30;
    private static final String FIRST = "sip:first@192.0.2.2";
    private static final String SECOND = "sip:second@192.0.2.3";
    private final Clock clock = Clock.systemUTC();
    @TempDir
    Path dir;

    @Test
    void changesBothSidesMadeToOneAorWhileSplitAreMergedContactByContact() {
        // a short keepalive, so that each side drops the other within seconds; a patient timeout, so
        // that nothing else is dropped on a loaded machine
        var config = LocalOverlay.fastConfig().with(BambooOptions.KEEPALIVE.name(), "300ms")
                .with(BambooOptions.MAX_TIMEOUT.name(), "2s").with(BambooOptions.DEADLINE.name(), "10s");
        try (var overlay = new LocalOverlay(dir, clock, 7, config)) {
            for (int i = 0; i < 3; i++) {
                overlay.add();
            }
            overlay.awaitConverged(Duration.ofSeconds(30));
            BambooNode a = overlay.nodes.get(0);
            BambooNode b = overlay.nodes.get(1);
            BambooNode c = overlay.nodes.get(2);
            Dht throughA = overlay.dht(a, null);
            Dht throughC = overlay.dht(c, null);
            for (int i = 0; i < AORS; i++) {
                String aor = aor(i);
                assertTrue(LocalOverlay.await(throughA.put(new BindingSet(aor, 0, retain(),
                        List.of(binding(aor, original(aor))))).toCompletableFuture()), "stored before the split");
            }

            overlay.network.silence(c.handle().address());
            LocalOverlay.eventually(Duration.ofSeconds(30), () -> members(a).equals(Set.of(b.handle().id()))
                            && members(b).equals(Set.of(a.handle().id())) && members(c).isEmpty(),
                    () -> "each side alone: " + members(a) + " " + members(b) + " " + members(c));
            // one side adds a contact to every AOR (the root's rules apply it); the other adds another
            // and, to half of them, drops the contact both had (a compare-and-set): each acknowledged
            for (int i = 0; i < AORS; i++) {
                String aor = aor(i);
                assertTrue(LocalOverlay.await(throughA.update(aor, FIRST.getBytes(StandardCharsets.UTF_8))
                        .toCompletableFuture()).written(), "a change on the first side is stored");
                BindingSet held = LocalOverlay.await(throughC.get(aor).toCompletableFuture());
                var next = new ArrayList<>(held.bindings());
                if (i % 2 == 0) {
                    next.removeIf(x -> x.contact().equals(original(aor)));
                }
                next.add(binding(aor, SECOND));
                assertTrue(LocalOverlay.await(throughC.put(held.next(next, held.retainUntil())).toCompletableFuture()),
                        "a change on the second side is stored");
            }

            // nobody joins anyone: the node left alone finds the others again through the peers it lost
            overlay.network.unsilence(c.handle().address());
            overlay.awaitConverged(Duration.ofSeconds(30));
            assertTrue(c.metrics().get(Rejoin.REJOINED) >= 1, "the node left alone rejoined: " + c.metrics());
            for (BambooNode through : overlay.nodes) {
                Dht dht = overlay.dht(through, null);
                LocalOverlay.eventually(Duration.ofSeconds(30), Duration.ofMillis(200),
                        () -> IntStream.range(0, AORS).allMatch(i -> merged(dht, aor(i), i % 2 != 0)),
                        () -> "every AOR holds both sides' contacts through " + through.handle() + ": "
                                + IntStream.range(0, AORS).mapToObj(i -> contacts(dht, aor(i))).toList());
            }
            long merged = overlay.nodes.stream()
                    .mapToLong(n -> n.metrics().getOrDefault(Maintenance.COPIES_MERGED, 0L)).sum();
            assertTrue(merged > 0, "the nodes that merged the two sides' records sent them on");
            // the replicas hold the merged records too: without the silenced side's node, its keys' new roots serve them
            overlay.kill(c);
            for (BambooNode through : overlay.nodes) {
                Dht dht = overlay.dht(through, null);
                LocalOverlay.eventually(Duration.ofSeconds(30), Duration.ofMillis(200),
                        () -> IntStream.range(0, AORS).allMatch(i -> merged(dht, aor(i), i % 2 != 0)),
                        () -> "every AOR still merged through " + through.handle() + " without " + c.handle());
            }
        }
    }

    private static Set<Id> members(BambooNode node) {
        return LocalOverlay.await(node.leafSetMembers().toCompletableFuture()).stream()
                .map(h -> h.id()).collect(Collectors.toSet());
    }

    /** Whether {@code aor} lists both sides' contacts, and the original one exactly when it was kept. */
    private static boolean merged(Dht through, String aor, boolean originalKept) {
        Set<String> contacts = contacts(through, aor);
        return contacts.contains(FIRST) && contacts.contains(SECOND)
                && contacts.contains(original(aor)) == originalKept && contacts.size() == (originalKept ? 3 : 2);
    }

    private static Set<String> contacts(Dht through, String aor) {
        try {
            return through.get(aor).toCompletableFuture().get(10, java.util.concurrent.TimeUnit.SECONDS).bindings().stream()
                    .map(Binding::contact).collect(Collectors.toSet());
        } catch (Exception failed) {
            return Set.of(); // the overlay may still be settling: asked again
        }
    }

    private Binding binding(String aor, String contact) {
        return new Binding(aor, contact, clock.millis() + 3_600_000, Binding.Q_UNSPECIFIED, "call-" + contact, 1,
                List.of(), "", 0);
    }

    private long retain() {
        return clock.millis() + 3_600_000;
    }

    private static String aor(int i) {
        return "sip:shared" + i + "@partition.example.com";
    }

    private static String original(String aor) {
        return "sip:" + aor.substring(4, aor.indexOf('@')) + "@192.0.2.1";
    }
}
