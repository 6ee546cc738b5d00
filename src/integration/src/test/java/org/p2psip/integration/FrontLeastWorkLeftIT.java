package org.p2psip.integration;

/**
 * {@link FrontIT} with the Transaction-Least-Work-Left policy: front on SIP 25230, nodes 25231-25234.
 * Matrix run only: the default run takes the front end to end in FlowsIT (TCP and TLS clients,
 * calls) and MalformedIT (bad input through it).
 */
@Matrix
class FrontLeastWorkLeftIT extends FrontIT {

    FrontLeastWorkLeftIT() {
        super("tlwl", 25230);
    }
}
