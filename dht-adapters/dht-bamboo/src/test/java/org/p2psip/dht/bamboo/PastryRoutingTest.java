package org.p2psip.dht.bamboo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.dht.bamboo.BambooNode.Located;
import org.p2psip.dht.ring.Id;

class PastryRoutingTest {

    @TempDir
    Path dir;

    @Test
    void tenThousandRandomKeysAllReachTheNumericallyClosestOfThirtyTwoNodesInFewHops() {
        try (var overlay = new LocalOverlay(dir, Clock.systemUTC(), 32, LocalOverlay.fastConfig())) {
            for (int i = 0; i < 32; i++) {
                overlay.add();
            }
            overlay.awaitConverged(Duration.ofSeconds(60));
            var random = new Random(7);
            long hops = 0;
            int keys = 10_000;
            for (int batch = 0; batch < keys; batch += 500) {
                List<Id> ids = new ArrayList<>();
                List<CompletableFuture<Located>> found = new ArrayList<>();
                for (int i = 0; i < 500; i++) {
                    Id key = Id.random(random);
                    ids.add(key);
                    BambooNode origin = overlay.nodes.get(random.nextInt(overlay.nodes.size()));
                    found.add(origin.locate(key).toCompletableFuture());
                }
                for (int i = 0; i < ids.size(); i++) {
                    Located located = LocalOverlay.await(found.get(i));
                    assertEquals(overlay.closest(ids.get(i)), located.root(), "root of " + ids.get(i));
                    hops += located.hops();
                }
            }
            double mean = (double) hops / keys;
            double bound = Math.log(32) / Math.log(16) + 1;
            assertTrue(mean <= bound, "mean hops " + mean + " must be at most log16(32) + 1 = " + bound);
        }
    }
}
