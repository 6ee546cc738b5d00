package org.p2psip.overlay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;

/**
 * What the in-process network adds to the transport: faults a test injects, and an address no
 * node ever had. The transport's own behaviour is the contract's ({@link InProcessTransportContractTest}).
 */
class InProcessTransportTest {

    private final InProcessNetwork network = new InProcessNetwork(2);
    private final OverlaySettings settings = OverlaySettings.withSecret("s");
    private final InProcessTransport a = network.transport("a:1", settings);
    private final InProcessTransport b = network.transport("b:1", settings);

    @AfterEach
    void close() {
        a.close();
        b.close();
        network.close();
    }

    private static Reason reasonOf(CompletionStage<?> stage) {
        var thrown = assertThrows(ExecutionException.class, () -> stage.toCompletableFuture().get(10, TimeUnit.SECONDS));
        return assertInstanceOf(DhtException.class, thrown.getCause()).reason();
    }

    @Test
    void aSilencedPeerTimesOutAndAnAbsentOneIsUnreachable() {
        b.serve((sender, type, payload) -> CompletableFuture.completedFuture(new byte[0]));
        network.silence("b:1");
        assertEquals(Reason.TIMEOUT, reasonOf(a.request("b:1", 1, new byte[0], Duration.ofMillis(100))));
        assertEquals(Reason.UNREACHABLE, reasonOf(a.request("nobody:1", 1, new byte[0], Duration.ofSeconds(5))));
        assertEquals(1L, a.metrics().get(AbstractTransport.TIMEOUTS));
    }

    @Test
    void withEveryFrameLostRequestsTimeOutAndWithLatencyTheyStillArrive() throws Exception {
        b.serve((sender, type, payload) -> CompletableFuture.completedFuture(new byte[] {42}));
        network.latency(Duration.ofMillis(5));
        assertArrayEquals(new byte[] {42}, a.request("b:1", 1, new byte[0], Duration.ofSeconds(5))
                .toCompletableFuture().get(10, TimeUnit.SECONDS));
        network.lossRate(1.0);
        assertEquals(Reason.TIMEOUT, reasonOf(a.request("b:1", 1, new byte[0], Duration.ofMillis(100))));
    }
}
