package org.p2psip.integration;

/** {@link FrontIT} with the round-robin policy: front on SIP 25220, nodes 25221-25224. */
@Matrix
class FrontRoundRobinIT extends FrontIT {

    FrontRoundRobinIT() {
        super("rr", 25220);
    }
}
