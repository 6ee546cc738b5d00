package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Three peers of the SIP-based DHT after Bryan's draft (SIP 25200-25202, the callee's UAS on
 * 25210), whose ring is kept with REGISTERs through the same containers that serve the users:
 * registrations through node 1 are found through node 0, calls through node 2 reach the callee
 * registered through node 1, and after node 2 is KILLed nothing registered is lost.
 *
 * <p>Not a {@link SharedBindingsIT}: each user REGISTER costs this backend several peer REGISTERs
 * through the containers (a get, a put, two replica copies), so three JVMs on a 2-core machine
 * carry well under that class's 400 REGISTER/s; this class drives 50/s, which holds also while
 * other tests load the machine. And `up` returns before the ring has formed (a Bryan node joins
 * through its own servlet, after init), so the first step waits until registrations succeed.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Matrix
class BryanNodesIT extends DeployedNodes {

    private static final int USERS = 1_000;
    private static final int RATE = 50;
    private static final int WARM_UP_START = 1_000_000;
    private static final int UAS_PORT = 25210;
    private static final int VICTIM = 2;
    /** How long the ring may take to form, or to repair after the kill, before a check fails. */
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    BryanNodesIT() {
        super("bryan", "bryan", 25200, 3);
    }

    @Test
    @Order(1)
    void registrationsThroughOneNodeAreAllAnswered200() {
        // the ring forms after `up` returned: warm-up rounds until one is all 200, within the patience
        assertEquals(0, sipp.untilPassed(PATIENCE, () -> sipp.register(deployment.node(1), 100, WARM_UP_START, 50)),
                "the ring did not form: warm-up REGISTERs through node 1 kept failing; " + sipp.where());
        assertEquals(0, sipp.register(deployment.node(1), USERS, 0, RATE),
                "a REGISTER through node 1 was not answered 200; " + sipp.where());
    }

    @Test
    @Order(2)
    void anotherNodeFindsThoseBindings() {
        assertEquals(0, sipp.query(deployment.node(0), USERS, 0, RATE),
                "node 0 did not list a binding registered through node 1; " + sipp.where());
    }

    @Test
    @Order(3)
    void callsThroughAnotherNodeReachTheCalleeRegisteredThroughNode1() {
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app proxies to a fixed target");
        assertEquals(0, sipp.calls(deployment.node(2), deployment.node(1), "callee", UAS_PORT, 20),
                "a call through node 2 to the callee registered through node 1 failed; " + sipp.where());
    }

    @Test
    @Order(4)
    void nothingRegisteredIsLostWhenANodeIsKilled() {
        deployment.kill(VICTIM);
        assertEquals(0, sipp.untilPassed(PATIENCE, () -> sipp.query(deployment.node(0), USERS, 0, RATE)),
                "after node " + VICTIM + " was killed, node 0 no longer lists every binding registered before; "
                        + sipp.where());
    }

    @Test
    @Order(5)
    void callsAfterTheKillReachTheCalleeRegisteredBefore() {
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app proxies to a fixed target");
        assertEquals(0, sipp.untilPassed(PATIENCE, () -> sipp.calls(deployment.node(0), null, "callee", UAS_PORT, 20)),
                "after node " + VICTIM + " was killed, calls through node 0 to the callee registered before failed; "
                        + sipp.where());
    }
}
