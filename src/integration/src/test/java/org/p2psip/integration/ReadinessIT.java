package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Ready means ready: four nodes behind the front, with the nodes' default warm-up, take ordinary
 * load the moment deploy/p2psip up returns, through node 0 and through the front at once, and
 * refuse none of it. Before the nodes warmed up and opened their intake only once they served,
 * the same load failed hundreds of REGISTERs (503 DHT Timeout) on a cold deployment. Each
 * subclass names a backend and its ports (front on the first, nodes on the next four).
 */
abstract class ReadinessIT extends DeployedNodes {

    static final int USERS = 2_000;
    static final int RATE = 500;
    /** Apart from the AORs registered through node 0. */
    static final int THROUGH_FRONT_START = 500_000;

    /** SIPp through the front, beside {@link #sipp} to node 0: a scenario runner per thread. */
    private final Scenarios sippViaFront;

    ReadinessIT(String dht, int frontPort) {
        super("ready-" + dht, dht, frontPort + 1, 4);
        sippViaFront = new Scenarios("ready-" + dht + "-front");
        deployment.withFront("rr", frontPort).withSipTrace(false).withDefaults();
    }

    @Test
    void everyRegistrationStartedTheMomentUpReturnedIsAnswered200() {
        var direct = CompletableFuture.supplyAsync(() -> sipp.register(deployment.node(0), USERS, 0, RATE));
        var viaFront = CompletableFuture.supplyAsync(
                () -> sippViaFront.register(deployment.front(), USERS, THROUGH_FRONT_START, RATE));
        int directCode = direct.join();
        int viaFrontCode = viaFront.join(); // both runs end before the nodes go: a teardown under load reads as their failure
        assertEquals(0, directCode, "a REGISTER sent to node 0 right after up was not answered 200; " + sipp.where());
        assertEquals(0, viaFrontCode, "a REGISTER sent through the front right after up was not answered 200; "
                + sippViaFront.where());
    }
}
