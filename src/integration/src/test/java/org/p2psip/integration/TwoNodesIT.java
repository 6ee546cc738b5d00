package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * `deploy/p2psip up --nodes 2`: each node takes registrations and carries calls. With the memory
 * backend nodes do not share bindings, so a call goes through the node that took the callee's
 * registration. In the matrix run only: AuthIT's two memory nodes take registrations and carry a
 * call each in the default run, and this class added a minute to it.
 */
@Matrix
class TwoNodesIT extends DeployedNodes {

    TwoNodesIT() {
        super("two", 25080, 2);
    }

    @ParameterizedTest(name = "node {0}")
    @ValueSource(ints = {0, 1})
    void eachNodeAnswersRegistrations(int node) {
        assertEquals(0, sipp.register(deployment.node(node), 200, node * 200, 100),
                "node " + node + " did not answer every REGISTER 200; " + sipp.where());
    }

    @ParameterizedTest(name = "node {0}")
    @ValueSource(ints = {0, 1})
    void eachNodeCarriesCallsToItsRegisteredUsers(int node) {
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app proxies to a fixed target, not by registration");
        assertEquals(0, sipp.calls(deployment.node(node), deployment.node(node), "callee-" + node, 10),
                "a call through node " + node + " did not complete; " + sipp.where());
    }
}
