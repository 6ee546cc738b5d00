package org.p2psip.dht.bamboo;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Dht;
import org.p2psip.dht.ring.Id;

class ChurnTest {

    private static final int AORS = 10_000;
    /** Operations in flight at once: enough to batch, few enough that queues stay short on a loaded machine. */
    private static final int WINDOW = 200;
    private static final int REPLICAS = BambooOptions.REPLICAS.defaultValue();

    @TempDir
    Path dir;

    @Test
    void twoOfEightNodesKilledWithoutWarningLoseNoBindingAndEveryKeyRegainsItsReplicas() {
        Clock clock = Clock.systemUTC();
        try (var overlay = new LocalOverlay(dir, clock, 8, LocalOverlay.fastConfig())) {
            for (int i = 0; i < 8; i++) {
                overlay.add();
            }
            overlay.awaitConverged(Duration.ofSeconds(30));
            List<Dht> dhts = overlay.nodes.stream().map(n -> (Dht) overlay.dht(n, null)).toList();
            long retain = clock.millis() + Duration.ofHours(2).toMillis();
            for (int from = 0; from < AORS; from += WINDOW) {
                List<CompletableFuture<Boolean>> puts = new ArrayList<>();
                for (int i = from; i < from + WINDOW; i++) {
                    var binding = new Binding(aor(i), contact(i), retain, 1000, "call-" + i, 1, List.of(), "", 0);
                    puts.add(dhts.get(i % dhts.size()).put(new BindingSet(aor(i), 0, retain, List.of(binding))).toCompletableFuture());
                }
                puts.forEach(p -> assertTrue(LocalOverlay.await(p), "every first put succeeds"));
            }

            BambooNode refusing = overlay.nodes.get(3);
            BambooNode silent = overlay.nodes.get(5);
            overlay.kill(refusing);
            overlay.crash(silent);
            overlay.awaitConverged(Duration.ofSeconds(30));
            LocalOverlay.eventually(Duration.ofSeconds(90), Duration.ofSeconds(1), () -> underReplicated(overlay).isEmpty(),
                    () -> "keys without root and " + REPLICAS + " replicas after repair: " + underReplicated(overlay).size());

            Dht reader = overlay.dht(overlay.nodes.get(0), null);
            LocalOverlay.eventually(Duration.ofSeconds(60), Duration.ofSeconds(1), () -> missing(reader).isEmpty(),
                    () -> "bindings lost after two nodes died: " + missing(reader).size() + " of " + AORS
                            + ", e.g. " + missing(reader).stream().limit(5).toList());
        }
    }

    /** AORs held by fewer than the root and its replicas among the running nodes. */
    private static List<String> underReplicated(LocalOverlay overlay) {
        Map<Id, Integer> copies = new HashMap<>();
        for (BambooNode node : overlay.nodes) {
            LocalOverlay.await(node.storedKeys().toCompletableFuture()).forEach(k -> copies.merge(k, 1, Integer::sum));
        }
        List<String> under = new ArrayList<>();
        for (int i = 0; i < AORS; i++) {
            if (copies.getOrDefault(BambooDht.key(aor(i)), 0) < REPLICAS + 1) {
                under.add(aor(i));
            }
        }
        return under;
    }

    private static List<String> missing(Dht reader) {
        List<String> lost = new ArrayList<>();
        for (int from = 0; from < AORS; from += WINDOW) {
            List<CompletableFuture<BindingSet>> gets = new ArrayList<>();
            for (int i = from; i < from + WINDOW; i++) {
                gets.add(reader.get(aor(i)).toCompletableFuture());
            }
            for (int i = 0; i < gets.size(); i++) {
                BindingSet set = gets.get(i).exceptionally(e -> null).join();
                int n = from + i;
                if (set == null || set.bindings().size() != 1 || !set.bindings().get(0).contact().equals(contact(n))) {
                    lost.add(aor(n));
                }
            }
        }
        return lost;
    }

    private static String aor(int i) {
        return "sip:user" + i + "@example.com";
    }

    private static String contact(int i) {
        return "sip:user" + i + "@10.0." + (i / 250) + "." + (i % 250);
    }
}
