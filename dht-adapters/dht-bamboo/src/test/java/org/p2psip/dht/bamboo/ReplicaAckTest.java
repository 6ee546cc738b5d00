package org.p2psip.dht.bamboo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.bamboo.routing.Pastry;

/** A root acknowledges a write only once its replicas answered that they stored it. */
class ReplicaAckTest {

    /** Copies wait one deadline for their Done: short, so that the failed put is judged in seconds. */
    private static final org.p2psip.config.Config CONFIG = LocalOverlay.fastConfig().with(BambooOptions.DEADLINE.name(), "5s");

    @TempDir
    Path dir;

    @Test
    void aPutWhoseReplicasAllFailIsNotAcknowledged() throws Exception {
        try (var overlay = new LocalOverlay(dir, Clock.systemUTC(), 3, CONFIG)) {
            for (int i = 0; i < 3; i++) {
                overlay.add();
            }
            overlay.awaitConverged(Duration.ofSeconds(30));
            BambooNode root = overlay.nodes.get(0);
            Id key = keyRootedAt(overlay, root);
            LocalOverlay.await(put(root, key, "stored everywhere")); // with live replicas a put is acknowledged

            // both replicas vanish; the root still has them in its leaf set when the write comes
            overlay.crash(overlay.nodes.get(2));
            overlay.crash(overlay.nodes.get(1));
            var lonely = put(root, key, "stored on the root alone");
            var failure = assertThrows(lonely);
            assertEquals(Reason.UNREACHABLE, failure.reason(), "a write no replica stored fails as " + Reason.UNREACHABLE
                    + ", got " + failure);
        }
    }

    @Test
    void aReplicaThatFailsIsReplacedByTheNextNearestMember() throws Exception {
        try (var overlay = new LocalOverlay(dir, Clock.systemUTC(), 5, CONFIG)) {
            for (int i = 0; i < 5; i++) {
                overlay.add();
            }
            overlay.awaitConverged(Duration.ofSeconds(30));
            BambooNode root = overlay.nodes.get(0);
            Id key = keyRootedAt(overlay, root);
            var replicas = LocalOverlay.await(root.leafSetMembers().toCompletableFuture()).stream()
                    .sorted((a, b) -> a.equals(b) ? 0 : Pastry.closer(key, a.id(), b.id()) ? -1 : 1).toList();
            BambooNode nearestReplica = overlay.nodes.stream().filter(n -> n.handle().equals(replicas.get(0))).findFirst().orElseThrow();
            overlay.crash(nearestReplica);
            var write = put(root, key, "stored on a stand-in");
            LocalOverlay.await(write); // acknowledged: the third-nearest member stood in for the silent one
            long holders = overlay.nodes.stream()
                    .filter(n -> LocalOverlay.await(n.storedKeys().toCompletableFuture()).contains(key)).count();
            assertEquals(3, holders, "the root and two live replicas hold the acknowledged write");
        }
    }

    /** A key whose root is {@code node}: its own id, one step on. */
    private static Id keyRootedAt(LocalOverlay overlay, BambooNode node) {
        Random random = new Random(1);
        for (int i = 0; i < 10_000; i++) {
            Id key = Id.random(random);
            if (overlay.closest(key).equals(node.handle())) {
                return key;
            }
        }
        throw new AssertionError("no key found whose root is " + node.handle());
    }

    private static CompletableFuture<Void> put(BambooNode node, Id key, String value) throws Exception {
        var put = node.put(key, value.getBytes(StandardCharsets.UTF_8), Duration.ofHours(1), new byte[20]).toCompletableFuture();
        try {
            put.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            // judged by the caller
        }
        return put;
    }

    private static DhtException assertThrows(CompletableFuture<Void> put) {
        try {
            put.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (DhtException.unwrap(e) instanceof DhtException d) {
                return d;
            }
            throw new AssertionError("expected a DhtException, got " + e.getCause(), e);
        }
        throw new AssertionError("a put whose every replica copy failed was acknowledged as stored");
    }
}
