package org.p2psip.dht.bamboo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Dht;

class LeaveTest {

    @TempDir
    Path dir;

    @Test
    void aNodeThatLeavesHandsItsKeysOverEvenWithoutReplicas() {
        Clock clock = Clock.systemUTC();
        var noReplicas = LocalOverlay.fastConfig().with(BambooOptions.REPLICAS.name(), "0");
        try (var overlay = new LocalOverlay(dir, clock, 4, noReplicas)) {
            for (int i = 0; i < 4; i++) {
                overlay.add();
            }
            overlay.awaitConverged(Duration.ofSeconds(30));
            Dht writer = overlay.dht(overlay.nodes.get(0), null);
            long retain = clock.millis() + 3_600_000;
            for (int i = 0; i < 300; i++) {
                String aor = "sip:u" + i + "@example.com";
                var binding = new Binding(aor, "sip:u" + i + "@10.0.0.1", retain, 1000, "c", 1, List.of(), "", 0);
                assertTrue(LocalOverlay.await(writer.put(new BindingSet(aor, 0, retain, List.of(binding))).toCompletableFuture()));
            }
            overlay.leave(overlay.nodes.get(2));
            overlay.awaitConverged(Duration.ofSeconds(30));
            for (int i = 0; i < 300; i++) {
                String aor = "sip:u" + i + "@example.com";
                assertEquals(1, LocalOverlay.await(writer.get(aor).toCompletableFuture()).bindings().size(),
                        aor + " must survive its root leaving, with no replica to fall back on");
            }
        }
    }
}
