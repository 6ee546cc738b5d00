package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The registration avalanche: 20,000 phones register within 2 s through the front before two
 * Chord nodes (front 25450, nodes 25451-25452), far more than the nodes carry; each obeys the
 * Retry-After of the 503s it gets (sipp-scenarios/avalanche). Every one must end registered, and
 * none may meet silence: a REGISTER refused is answered at once, not left to time out. The run's
 * output (in the SIPp log named in a failure) says how long until the last one was registered.
 *
 * <p>In the matrix run: it passed in one full run (all registered after 37 s) and failed in the
 * next, where 135 phones got a 503 and then a 200 for one transaction, most likely from the
 * front, which answers 503 for the open transactions of a node whose probe went unanswered for
 * its time-out, while that node, slow but alive, answered them later.
 */
@Matrix
class AvalancheIT extends DeployedNodes {

    static final int USERS = 20_000;

    AvalancheIT() {
        super("avalanche", "chord", 25451, 2);
        deployment.withFront("rr", 25450).withSipTrace(false).withDefaults();
    }

    @Test
    void everyPhoneOfAnAvalancheEndsRegistered() {
        assertEquals(0, sipp.avalanche(deployment.front(), USERS, 2),
                "not every phone of the avalanche ended registered; " + sipp.where());
        assertEquals(0, sipp.query(deployment.front(), USERS, 0, 1_000),
                "an AOR the avalanche registered is not found afterwards; " + sipp.where());
    }
}
