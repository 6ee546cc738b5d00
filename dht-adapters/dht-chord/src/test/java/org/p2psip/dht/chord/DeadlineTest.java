package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.config.NodeOptions;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.ring.Id;

/** An operation that cannot reach the key's owner fails its stage with DhtException; it never hangs. */
class DeadlineTest {

    private Ring ring;

    @AfterEach
    void close() {
        ring.close();
    }

    @Test
    void whenEveryPeerFallsSilentAGetFailsWithDhtExceptionInsteadOfHanging() {
        ring = Ring.of(3, Clock.systemUTC());
        ChordDht asker = ring.nodes.get(0);
        String aor = aorNotOwnedBy(asker);
        ring.nodes.stream().filter(n -> n != asker).forEach(n -> ring.network.silence(n.self().address()));

        var failure = assertThrows(ExecutionException.class,
                () -> asker.get(aor).toCompletableFuture().get(30, TimeUnit.SECONDS));
        DhtException e = assertInstanceOf(DhtException.class, failure.getCause());
        assertTrue(e.reason() == DhtException.Reason.TIMEOUT || e.reason() == DhtException.Reason.UNREACHABLE,
                "expected TIMEOUT or UNREACHABLE, got " + e);
        assertTrue(asker.metrics().get("chord.operation.failures") >= 1);
    }

    @Test
    void aNodeRefusesToStartWithoutTheOverlaySecret() {
        var noSecret = Ring.fastConfig().with("p2psip.overlay.secret", "");
        ring = new Ring(Clock.systemUTC(), false);
        var refused = assertThrows(IllegalArgumentException.class,
                () -> ChordDht.start(noSecret.with(NodeOptions.OVERLAY_ADDRESS.name(), "127.0.0.1:0"), Clock.systemUTC()));
        assertTrue(refused.getMessage().contains("p2psip.overlay.secret"), refused.getMessage());
        assertEquals(0, ring.nodes.size());
    }

    private String aorNotOwnedBy(ChordDht node) {
        for (int i = 0; ; i++) {
            String aor = "sip:far" + i + "@example.com";
            if (!ring.owner(Id.hash(aor)).equals(node.self())) {
                return aor;
            }
        }
    }
}
