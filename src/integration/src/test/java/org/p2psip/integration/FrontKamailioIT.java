package org.p2psip.integration;

/**
 * {@link FrontIT} with Kamailio's dispatcher as the front (deploy/p2psip up --front kamailio-rr,
 * deploy/kamailio/front.cfg): front on SIP 25280, nodes 25281-25284. The same checks hold: every
 * node gets REGISTERs, a call's requests reach one node, a killed node gets no new work and
 * nothing registered is lost.
 */
@Matrix
class FrontKamailioIT extends FrontIT {

    FrontKamailioIT() {
        super("kamailio-rr", 25280);
    }

    /** deploy/kamailio/front.cfg listens on UDP and TCP only (deploy/p2psip_deploy/kamailio_front.py). */
    @Override
    boolean frontServesTls() {
        return false;
    }

    /** Kamailio's dispatcher names a node by its URI (the front.cfg's dst-down event route). */
    @Override
    String markedDownLine(int i) {
        return "node sip:" + deployment.node(i) + " is down";
    }
}
