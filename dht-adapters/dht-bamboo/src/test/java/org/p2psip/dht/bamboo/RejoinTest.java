package org.p2psip.dht.bamboo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Dht;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.bamboo.routing.NodeHandle;

/**
 * A node whose leaf set lost every member joins again by itself, through the members it lost or
 * the deployment's members; the first node, alone on purpose, never tries.
 */
class RejoinTest {

    private final Clock clock = Clock.systemUTC();
    @TempDir
    Path dir;

    @Test
    void aNodeWhosePeersAreSilentKeepsTryingThemAndServesMeanwhileWhileAFounderAloneNeverTries() {
        var config = LocalOverlay.fastConfig().with(BambooOptions.KEEPALIVE.name(), "300ms");
        try (var overlay = new LocalOverlay(dir.resolve("two"), clock, 3, config);
             var founder = new LocalOverlay(dir.resolve("one"), clock, 4, LocalOverlay.fastConfig())) {
            BambooNode left = overlay.add();
            BambooNode gone = overlay.add();
            BambooNode alone = founder.add();
            overlay.awaitConverged(Duration.ofSeconds(30));
            overlay.crash(gone);

            // each attempt through the silent peer ends at its deadline, so they follow one another
            LocalOverlay.eventually(Duration.ofSeconds(60), () -> left.metrics().get(Rejoin.ATTEMPTS) >= 3,
                    () -> "the node left alone tries again: " + left.metrics());
            Dht through = overlay.dht(left, null);
            String aor = "sip:alone@rejoin.example.com";
            long until = clock.millis() + 60_000;
            var contact = new Binding(aor, "sip:alone@192.0.2.9", until, Binding.Q_UNSPECIFIED, "call-alone", 1, List.of(), "", 0);
            assertTrue(LocalOverlay.await(through.put(new BindingSet(aor, 0, until, List.of(contact))).toCompletableFuture()),
                    "the node serves alone between its attempts");
            assertEquals(0L, left.metrics().get(Rejoin.REJOINED), "nobody to rejoin yet");
            assertEquals(0L, alone.metrics().get(Rejoin.ATTEMPTS), "a node that never had a member has none to find");
        }
    }

    @Test
    void aNodeWhosePeersAreGoneRejoinsThroughTheDeploymentsMembers() {
        try (var overlay = new LocalOverlay(dir, clock, 5, LocalOverlay.fastConfig().with(BambooOptions.KEEPALIVE.name(), "300ms"))) {
            BambooNode first = overlay.add();
            BambooNode cut = overlay.add();
            String later = "node-later";
            // the deployment names the first node and one started later; the first answers at once
            LocalOverlay.await(cut.joinInBackground(List.of(first.handle().address(), later)).toCompletableFuture());

            overlay.network.silence(cut.handle().address());
            LocalOverlay.eventually(Duration.ofSeconds(30), () -> members(first).isEmpty() && members(cut).isEmpty(),
                    () -> "both alone: " + members(first) + " " + members(cut));
            BambooNode other = overlay.start(new NodeHandle(Id.random(new Random(6)), later)); // joins the first
            overlay.kill(first); // the only member the cut node lost is gone: the later one is left to try
            overlay.network.unsilence(cut.handle().address());

            overlay.awaitConverged(Duration.ofSeconds(30));
            assertEquals(List.of(other.handle()), members(cut));
            assertTrue(cut.metrics().get(Rejoin.REJOINED) >= 1, "rejoined by itself: " + cut.metrics());
        }
    }

    private static List<NodeHandle> members(BambooNode node) {
        return LocalOverlay.await(node.leafSetMembers().toCompletableFuture());
    }
}
