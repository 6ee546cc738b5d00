package org.p2psip.servlet;

import java.io.IOException;
import java.time.Clock;
import java.util.List;
import javax.servlet.ServletException;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import org.p2psip.config.Config;
import org.p2psip.config.NodeOptions;
import org.p2psip.config.Option;
import org.p2psip.dht.Dht;
import org.p2psip.dht.bryan.BryanDht;
import org.p2psip.dht.bryan.BryanOptions;

/**
 * A node of the SIP-based DHT after Bryan's draft: the peers keep their Chord ring with SIP
 * REGISTERs through this same container. A REGISTER carrying DHT-PeerID is a peer's and goes to
 * the overlay; every other request is a user agent's and goes to the registrar and proxy, whose
 * bindings the overlay stores. Responses to this node's own peer REGISTERs come back here.
 */
public class BryanSipServlet extends P2PSipServlet {

    private static final long serialVersionUID = 1L;

    private transient SipServletPeerLink link;

    @Override
    protected String backendName() {
        return "bryan";
    }

    @Override
    protected Dht createDht(Config config, Clock clock) {
        var factory = (SipFactory) getServletContext().getAttribute(SIP_FACTORY);
        link = new SipServletPeerLink(factory, config.get(NodeOptions.SIP_ADDRESS));
        return BryanDht.start(link, config, clock);
    }

    @Override
    protected List<Option<?>> backendOptions() {
        return BryanOptions.ALL;
    }

    /** The join's REGISTERs are answered through this servlet, which the container holds until init returns. */
    @Override
    protected boolean joinsBeforeServing() {
        return false;
    }

    @Override
    protected void doRequest(SipServletRequest request) throws ServletException, IOException {
        if (link != null && request.isInitial() && isPeerRegister(request)) {
            link.received(request);
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

    private static boolean isPeerRegister(SipServletRequest request) {
        return "REGISTER".equals(request.getMethod()) && request.getHeader(SipServletPeerLink.PEER_HEADER) != null;
    }
}
