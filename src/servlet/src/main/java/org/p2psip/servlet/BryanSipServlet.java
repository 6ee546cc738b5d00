package org.p2psip.servlet;

import java.io.IOException;
import java.time.Clock;
import java.util.concurrent.CompletionStage;
import javax.servlet.ServletException;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.SipURI;
import org.p2psip.config.Config;
import org.p2psip.config.NodeOptions;
import org.p2psip.dht.Dht;
import org.p2psip.dht.OwnerRules;
import org.p2psip.dht.bryan.BryanDht;
import org.p2psip.dht.bryan.BryanOptions;

/**
 * A node of the SIP-based DHT after Bryan's draft: the peers keep their Chord ring with SIP
 * REGISTERs through this same container. A REGISTER carrying DHT-PeerID is a peer's and goes to
 * the overlay; every other request is a user agent's and goes to the registrar and proxy, whose
 * bindings the overlay stores. Responses to this node's own peer REGISTERs come back here.
 *
 * <p>The node joins after init (below), so until it has taken its place on the ring its health
 * probe, an OPTIONS to the node itself, is answered 503: deploy/p2psip up, which waits for every
 * node to answer 200, then returns once the ring serves every key, as it does for the backends
 * that join inside init.
 */
public class BryanSipServlet extends P2PSipServlet {

    private static final long serialVersionUID = 1L;

    private transient SipServletPeerLink link;
    private transient BryanDht dht;

    @Override
    protected Dht createDht(Config config, Clock clock, OwnerRules ownerRules) {
        var factory = (SipFactory) getServletContext().getAttribute(SIP_FACTORY);
        link = new SipServletPeerLink(factory, config.get(NodeOptions.SIP_ADDRESS), transport(config), sessions());
        intake().exempt(SipServletPeerLink.PEER_HEADER); // the ring's own REGISTERs: joining needs them
        dht = BryanDht.start(link, config, clock, ownerRules);
        return dht;
    }

    private static String transport(Config config) {
        String transport = config.get(BryanOptions.TRANSPORT).toLowerCase(java.util.Locale.ROOT);
        if (!transport.equals("udp") && !transport.equals("tcp")) {
            throw new IllegalArgumentException(BryanOptions.TRANSPORT.name() + " must be udp or tcp, not " + transport);
        }
        return transport;
    }

    /** Opens to clients once the peer serves its range of the ring, not merely once it joined. */
    @Override
    protected CompletionStage<Void> serving() {
        return dht.placed();
    }

    @Override
    protected void doRequest(SipServletRequest request) throws ServletException, IOException {
        if (link != null && request.isInitial() && isPeerRegister(request)) {
            link.received(request);
        } else if (dht != null && request.isInitial() && isHealthProbe(request) && !dht.placed().toCompletableFuture().isDone()) {
            notOnTheRingYet(request);
        } else {
            super.doRequest(request);
        }
    }

    @Override
    protected void doResponse(SipServletResponse response) throws ServletException, IOException {
        if (link != null && isPeerRegister(response.getRequest())) {
            link.answered(response);
        } else {
            super.doResponse(response);
        }
    }

    /** An OPTIONS to the node itself (no user in the Request-URI), as P2PSipServlet's proxy answers it. */
    private static boolean isHealthProbe(SipServletRequest request) {
        return "OPTIONS".equals(request.getMethod()) && request.getRequestURI() instanceof SipURI sip
                && (sip.getUser() == null || sip.getUser().isEmpty());
    }

    private void notOnTheRingYet(SipServletRequest request) throws IOException {
        try {
            SipServletResponse response = request.createResponse(SipServletResponse.SC_SERVICE_UNAVAILABLE,
                    "Not on the ring yet");
            response.setHeader("Retry-After", "1");
            response.send();
        } finally {
            sessions().release(request);
        }
    }

    private static boolean isPeerRegister(SipServletRequest request) {
        return "REGISTER".equals(request.getMethod()) && request.getHeader(SipServletPeerLink.PEER_HEADER) != null;
    }
}
