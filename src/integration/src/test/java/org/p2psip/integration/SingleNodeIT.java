package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** One node of the real container with the WAR (memory backend), driven by SIPp on loopback. */
class SingleNodeIT extends DeployedNodes {

    SingleNodeIT() {
        super("single", 25070, 1);
    }

    @Test
    void thousandDistinctRegistersAreAllAnswered200() {
        assertEquals(0, sipp.register(deployment.node(0), 1000, 0, 250),
                "SIPp saw a REGISTER not answered 200; " + sipp.where());
    }

    @Test
    void callIsRoutedToTheRegisteredSippUas() {
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app proxies to a fixed target, not by registration");
        assertEquals(0, sipp.calls(deployment.node(0), deployment.node(0), "single-callee", 20),
                "a call through the proxy to the registered UAS did not complete; " + sipp.where());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"malformed-contact", "non-numeric-expires", "wildcard-without-expires-0",
        "interval-too-brief", "invite-unknown-aor", "version-not-supported", "unsupported-uri-scheme",
        "unsupported-contact-scheme", "register-domain-not-served", "invite-domain-not-served"})
    void badInputIsAnsweredAsTheScenarioExpects(String scenario) {
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app does not check its input");
        assertEquals(0, sipp.badInput(deployment.node(0), scenario),
                scenario + ": the answer was not the one sipp-scenarios/bad-input/" + scenario + ".xml expects; "
                        + sipp.where());
    }

    /**
     * The node's intake answers a request without From 400 from the datagram (the stack dropped
     * it unanswered). Without Call-ID, CSeq or To the intake answers 400 too, but SIPp cannot
     * match such an answer to its call: MalformedIT's raw-socket corpus checks those.
     */
    @Test
    void aRequestWithoutFromIsAnswered400() {
        assertEquals(0, sipp.badInput(deployment.node(0), "no-from"), "no-from; " + sipp.where());
    }
}
