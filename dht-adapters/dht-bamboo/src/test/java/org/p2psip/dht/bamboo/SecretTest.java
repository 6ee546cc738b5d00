package org.p2psip.dht.bamboo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.bamboo.storage.ValueStore.Removal;

class SecretTest {

    @TempDir
    Path dir;

    @Test
    void removingThroughTheOverlayWithAWrongSecretIsRefusedAndLeavesTheValue() {
        try (var overlay = new LocalOverlay(dir, Clock.systemUTC(), 5, LocalOverlay.fastConfig())) {
            for (int i = 0; i < 3; i++) {
                overlay.add();
            }
            overlay.awaitConverged(Duration.ofSeconds(30));
            BambooNode owner = overlay.nodes.get(0);
            BambooNode stranger = overlay.nodes.get(2);
            Id key = Id.hash("some key");
            byte[] value = "a value".getBytes(StandardCharsets.UTF_8);
            byte[] secret = "the owner's secret".getBytes(StandardCharsets.UTF_8);
            LocalOverlay.await(owner.put(key, value, Duration.ofMinutes(10), Id.sha1(secret)).toCompletableFuture());

            assertEquals(Removal.WRONG_SECRET, LocalOverlay.await(stranger.remove(key, Id.sha1(value),
                    "a guess".getBytes(StandardCharsets.UTF_8)).toCompletableFuture()));
            assertEquals(1, LocalOverlay.await(stranger.get(key, 10, new byte[0]).toCompletableFuture()).values().size(),
                    "the value is still there");
            assertEquals(Removal.REMOVED, LocalOverlay.await(stranger.remove(key, Id.sha1(value), secret).toCompletableFuture()));
            assertEquals(List.of(), LocalOverlay.await(owner.get(key, 10, new byte[0]).toCompletableFuture()).values());
        }
    }

    @Test
    void aNodeWithoutTheOverlaySecretCanNeitherReplaceNorRemoveARecord() {
        Clock clock = Clock.systemUTC();
        try (var overlay = new LocalOverlay(dir, clock, 6, LocalOverlay.fastConfig())) {
            overlay.add();
            overlay.add();
            overlay.awaitConverged(Duration.ofSeconds(30));
            var member = overlay.dht(overlay.nodes.get(0), null);
            var intruder = new BambooDht(overlay.nodes.get(1), "not-the-overlay-secret", clock, null);
            String aor = "sip:victim@example.com";
            long retain = clock.millis() + 3_600_000;
            var binding = new Binding(aor, "sip:victim@10.0.0.1", retain, 1000, "c", 1, List.of(), "", 0);
            assertTrue(LocalOverlay.await(member.put(new BindingSet(aor, 0, retain, List.of(binding))).toCompletableFuture()));

            assertFalse(LocalOverlay.await(intruder.put(new BindingSet(aor, 1, retain, List.of())).toCompletableFuture()));
            assertFalse(LocalOverlay.await(intruder.remove(aor, 1).toCompletableFuture()));
            assertEquals(1, LocalOverlay.await(member.get(aor).toCompletableFuture()).bindings().size());
        }
    }
}
