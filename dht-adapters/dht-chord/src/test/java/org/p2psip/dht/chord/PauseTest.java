package org.p2psip.dht.chord;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;

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
            Ring.places(owner).get(0).loop().execute(() -> {
                try {
                    resume.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            CompletableFuture<?> late = entry.update(AOR, "sip:c@192.0.2.3".getBytes(UTF_8)).toCompletableFuture();
            Ring.awaitTrue("the change sent to the stopped owner timed out", late::isDone, Duration.ofSeconds(30));
            Ring.awaitTrue("the removal acknowledged by the ring around the stopped owner",
                    () -> removedThrough(others.get(1), clock), Duration.ofSeconds(60));

            resume.countDown();
            ring.awaitSettled();
            for (ChordDht through : ring.nodes) {
                Ring.awaitTrue("a read through " + through.self() + " answers", () -> readable(through), Duration.ofSeconds(30));
                BindingSet read = Ring.get(through.get(AOR));
                assertFalse(contacts(read).contains("sip:b@192.0.2.2"),
                        "the removed binding came back, read through " + through.self() + ": " + read);
            }
            assertTrue(owner.metrics().getOrDefault("chord.stalls", 0L) > 0,
                    "the owner noticed it stood still: " + owner.metrics());
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

    private static boolean readable(ChordDht node) {
        try {
            Ring.get(node.get(AOR));
            return true;
        } catch (AssertionError failedOrHung) {
            return false;
        }
    }

    private static List<String> contacts(BindingSet set) {
        return set.bindings().stream().map(Binding::contact).toList();
    }
}
