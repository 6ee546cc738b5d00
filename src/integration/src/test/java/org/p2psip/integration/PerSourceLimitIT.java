package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * One source flooding at ten times its limit does not touch another's service: a node with
 * p2psip.limits.per-source=100, SIPp from 127.0.0.2 at 1,000 REGISTER/s and SIPp from
 * 127.0.0.1 at 50/s at the same time. The flood gets 503 Source Over Limit for what passes its
 * limit; every REGISTER of the other source is answered 200. A flood: the matrix run's, out of
 * the default run's budget.
 */
@Matrix
class PerSourceLimitIT extends DeployedNodes {

    private final Scenarios flood = new Scenarios("per-source-flood");

    PerSourceLimitIT() {
        super("per-source", 25480, 1);
        deployment.withSetting("p2psip.limits.per-source", "100");
    }

    @Test
    void aFloodingSourceIsRefusedWhileAnotherSourceIsServed() {
        var flooding = CompletableFuture.supplyAsync(() -> flood.register(deployment.node(0), 5_000, 1_000_000, 1_000, "127.0.0.2"));
        int modest = sipp.register(deployment.node(0), 250, 0, 50);
        int flooded = flooding.join();
        assertEquals(0, modest, "a REGISTER of the modest source was not answered 200; " + sipp.where());
        assertNotEquals(0, flooded, "the source at ten times its limit should have met 503 Source Over Limit; " + flood.where());
    }
}
