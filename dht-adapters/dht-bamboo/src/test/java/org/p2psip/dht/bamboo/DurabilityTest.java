package org.p2psip.dht.bamboo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Dht;
import org.p2psip.dht.contract.MutableClock;

class DurabilityTest {

    @TempDir
    Path dir;
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

    @Test
    void aNodeRestartedOnItsDirectoryServesItsBindingsAndNotThoseThatExpired() {
        try (var overlay = new LocalOverlay(dir, clock, 1, LocalOverlay.fastConfig()
                .with(BambooOptions.STORAGE_FSYNC.name(), "true"))) {
            BambooNode node = overlay.add();
            Dht dht = overlay.dht(node, null);
            long hour = Duration.ofHours(1).toMillis();
            for (int i = 0; i < 100; i++) {
                String aor = "sip:kept" + i + "@example.com";
                assertTrue(LocalOverlay.await(dht.put(set(aor, clock.millis() + 5 * hour)).toCompletableFuture()));
            }
            String brief = "sip:brief@example.com";
            assertTrue(LocalOverlay.await(dht.put(set(brief, clock.millis() + 60_000)).toCompletableFuture()));

            overlay.kill(node);
            clock.advance(Duration.ofMinutes(2));
            Dht restarted = overlay.dht(overlay.start(node.handle()), null);

            for (int i = 0; i < 100; i++) {
                String aor = "sip:kept" + i + "@example.com";
                BindingSet got = LocalOverlay.await(restarted.get(aor).toCompletableFuture());
                assertEquals(1, got.version(), aor + " after restart");
                assertEquals(List.of("sip:" + aor.substring(4)), got.bindings().stream().map(Binding::contact).toList());
            }
            assertFalse(LocalOverlay.await(restarted.get(brief).toCompletableFuture()).exists(),
                    "a record past its retention is gone after restart too");
        }
    }

    private BindingSet set(String aor, long retainUntil) {
        var binding = new Binding(aor, "sip:" + aor.substring(4), retainUntil, 1000, "c", 1, List.of(), "", 0);
        return new BindingSet(aor, 0, retainUntil, List.of(binding));
    }
}
