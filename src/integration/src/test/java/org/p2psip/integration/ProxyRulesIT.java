package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The proxy's answers and forwarding (RFC 3261 §16) and the registrar's 200 and refusals
 * (§10.3), on one node of the real container (memory backend), each checked by a SIPp run of
 * sipp-scenarios/proxy or sipp-scenarios/registrar that fails when the node answers otherwise.
 */
class ProxyRulesIT extends DeployedNodes {

    ProxyRulesIT() {
        super("proxy", "memory", 25260, 1);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"unavailable", "too-many-hops", "too-many-hops-options", "loop", "cancel", "q-order"})
    void proxyAnswersAsTheCheckExpects(String check) {
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app proxies to a fixed target, not by registration");
        assertEquals(0, sipp.proxy(deployment.node(0), check),
                check + ": see sipp-scenarios/proxy/README.md for what SIPp expected; " + sipp.where());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"answer-lists-date-and-expires", "refused-keeps-binding"})
    void registrarAnswersAsTheCheckExpects(String check) {
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app has no registrar");
        assertEquals(0, sipp.registrar(deployment.node(0), check),
                check + ": the answer was not the one sipp-scenarios/registrar/" + check + ".xml expects; "
                        + sipp.where());
    }
}
