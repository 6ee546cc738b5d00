package org.p2psip.integration;

/** {@link FrontIT} with the Transaction-Least-Work-Left policy: front on SIP 25230, nodes 25231-25234. */
class FrontLeastWorkLeftIT extends FrontIT {

    FrontLeastWorkLeftIT() {
        super("tlwl", 25230);
    }
}
