package org.p2psip.dht.chord;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.VirtualNodes;

/**
 * A node whose process stood still (SIGSTOP) past the deadline, while its successor took its range
 * over and an acknowledged removal was written there, must not bring the removed binding back once
 * it runs again. Its loop stands still here as a stopped process's does: no timer fires and the
 * frames sent to it wait, then run first when it resumes. One of them is a change sent before the
 * removal, which timed out at its sender: applied to the stale record the node kept, it wrote a
 * record as new by its stamp as the successor's removal, and the node, owner again, kept its own
 * (a fault run on four nodes read the removed binding four times after such a pause).
 */
class PauseTest {

    private static final String AOR = "sip:paused@example.com";

    @Test
    void aRemovalTakenWhileTheOwnerWasStoppedStaysRemovedOnceItRunsAgain() throws Exception {
        Clock clock = Clock.systemUTC();
        try (Ring ring = new Ring(clock, false, 4)) {
            for (int i = 0; i < 4; i++) {
                ring.add();
            }
            ring.awaitSettled();
            NodeRef ownerRef = ring.owner(Id.hash(AOR));
            ChordDht owner = ring.nodes.stream().filter(n -> n.self().equals(ownerRef)).findFirst().orElseThrow();
            List<ChordDht> others = ring.nodes.stream().filter(n -> n != owner).toList();
            ChordDht entry = others.get(0);
            Ring.get(entry.update(AOR, "sip:b@192.0.2.2".getBytes(UTF_8)));

            CountDownLatch resume = new CountDownLatch(1);
            stopLoop(owner, resume);
            CompletableFuture<?> late = entry.update(AOR, "sip:c@192.0.2.3".getBytes(UTF_8)).toCompletableFuture();
            Ring.awaitTrue("the change sent to the stopped owner timed out", late::isDone, Duration.ofSeconds(30));
            Ring.awaitTrue("the removal acknowledged by the ring around the stopped owner",
                    () -> removedThrough(others.get(1), clock), Duration.ofSeconds(60));

            resume.countDown();
            ring.awaitSettled();
            for (ChordDht through : ring.nodes) {
                Ring.awaitTrue("a read through " + through.self() + " answers", () -> readable(through, AOR), Duration.ofSeconds(30));
                BindingSet read = Ring.get(through.get(AOR));
                assertFalse(contacts(read).contains("sip:b@192.0.2.2"),
                        "the removed binding came back, read through " + through.self() + ": " + read);
            }
            assertTrue(owner.metrics().getOrDefault("chord.stalls", 0L) > 0,
                    "the owner noticed it stood still: " + owner.metrics());
        }
    }

    /**
     * Nodes of several places: the AOR's owner place has a place of its own node as successor, so
     * when that node stops both are dropped together and the ring's next place, on another node,
     * takes the range over and acknowledges an add there. Once the node runs again, both its
     * places wait for their records; the owner place must get them from the node that held the
     * range meanwhile (through its sibling, once that was handed them), never from its sibling's
     * stale holdings (a fault run on four nodes of 64 places lost an add so, acknowledged while
     * one node was stopped and gone 2 s after it ran again).
     */
    @Test
    void anAddAcknowledgedWhileTheOwnersNodeWasStoppedIsReadThroughEveryNodeOnceItRunsAgain() throws Exception {
        int places = 4;
        Clock clock = Clock.systemUTC();
        try (Ring ring = new Ring(clock, false, 4).with(ChordOptions.PLACES.name(), String.valueOf(places))) {
            for (int i = 0; i < 4; i++) {
                ring.add();
            }
            ring.awaitWholeRing(places);
            List<Id> ids = ring.nodes.stream().flatMap(n -> VirtualNodes.ids(n.self().address(), places).stream())
                    .sorted().toList();
            String aor = ownedBeforeASibling(ring, ids, places);
            Id owner = ownerOf(ids, Id.hash(aor));
            ChordDht stopped = ring.nodes.stream()
                    .filter(n -> VirtualNodes.ids(n.self().address(), places).contains(owner)).findFirst().orElseThrow();
            List<ChordDht> others = ring.nodes.stream().filter(n -> n != stopped).toList();
            Ring.get(others.get(0).update(aor, "sip:a@192.0.2.1".getBytes(UTF_8)));

            CountDownLatch resume = new CountDownLatch(1);
            stopLoop(stopped, resume);
            // a fresh contact each try: one that timed out, or that a replica did not take, may
            // still be stored at the owner, and a second add of it would change nothing
            AtomicInteger tries = new AtomicInteger();
            Ring.awaitTrue("an add acknowledged by the ring around the stopped node",
                    () -> added(others.get(1), aor, "sip:b" + tries.incrementAndGet() + "@192.0.2.2"),
                    Duration.ofSeconds(60));
            String acknowledged = "sip:b" + tries.get() + "@192.0.2.2";

            resume.countDown();
            ring.awaitWholeRing(places);
            for (ChordDht through : ring.nodes) {
                Ring.awaitTrue("a read through " + through.self() + " answers", () -> readable(through, aor),
                        Duration.ofSeconds(30));
                BindingSet read = Ring.get(through.get(aor));
                assertTrue(contacts(read).containsAll(List.of("sip:a@192.0.2.1", acknowledged)),
                        "the add acknowledged while " + stopped.self() + " was stopped is gone, read through "
                                + through.self() + ": " + read);
            }
            assertEquals((long) places, stopped.metrics().get("chord.stalls"),
                    "every place of the stopped node noticed it stood still: " + stopped.metrics());
        }
    }

    /** An AOR whose owner place (among {@code ids}, sorted) has the next place of its own node as successor. */
    private static String ownedBeforeASibling(Ring ring, List<Id> ids, int places) {
        for (int i = 0; ; i++) {
            String aor = "sip:paused-" + i + "@example.com";
            Id owner = ownerOf(ids, Id.hash(aor));
            Id successor = ids.get((ids.indexOf(owner) + 1) % ids.size());
            boolean sibling = ring.nodes.stream().map(n -> VirtualNodes.ids(n.self().address(), places))
                    .anyMatch(own -> own.contains(owner) && own.contains(successor));
            if (sibling) {
                return aor;
            }
        }
    }

    /** The first of {@code ids} (sorted) at or after {@code key}, round the circle. */
    private static Id ownerOf(List<Id> ids, Id key) {
        return ids.stream().filter(id -> id.compareTo(key) >= 0).findFirst().orElse(ids.get(0));
    }

    /** Stops {@code node}'s loop, as a stopped process's stands still, until {@code resume} counts down. */
    private static void stopLoop(ChordDht node, CountDownLatch resume) {
        Ring.places(node).get(0).loop().execute(() -> {
            try {
                resume.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /** Tries once to add {@code contact} to {@code aor} through {@code node}; true when acknowledged. */
    private static boolean added(ChordDht node, String aor, String contact) {
        try {
            return Ring.get(node.update(aor, contact.getBytes(UTF_8))).written();
        } catch (AssertionError failedOrHung) { // the ring is still routing around the stopped node
            return false;
        }
    }

    /** Tries once to remove every binding of the AOR through {@code node}; true when acknowledged. */
    private static boolean removedThrough(ChordDht node, Clock clock) {
        try {
            BindingSet current = Ring.get(node.get(AOR));
            return Ring.get(node.put(current.next(List.of(), clock.millis() + 86_400_000)));
        } catch (AssertionError failedOrHung) { // the ring is still routing around the stopped node
            return false;
        }
    }

    private static boolean readable(ChordDht node, String aor) {
        try {
            Ring.get(node.get(aor));
            return true;
        } catch (AssertionError failedOrHung) {
            return false;
        }
    }

    private static List<String> contacts(BindingSet set) {
        return set.bindings().stream().map(Binding::contact).toList();
    }
}
