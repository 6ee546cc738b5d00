package org.p2psip.front.calls;

import gov.nist.javax.sip.address.SipUri;
import gov.nist.javax.sip.header.Contact;
import gov.nist.javax.sip.message.SIPResponse;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import javax.sip.header.ContactHeader;
import org.p2psip.front.nodes.Node;
import org.p2psip.front.wire.ViaPath;

/**
 * Where a kept call rings next: a contact the node handed back in its 302, reached over UDP at
 * its IP address, or - when the front cannot reach a contact itself - the node, which then proxies
 * the call as it does for a stateless front. Immutable.
 */
record KeptTarget(SipUri uri, InetSocketAddress address, Node node) {

    /**
     * The targets of a 302, highest q first (the node lists them so; equal q keep its order). If
     * any contact is one the front cannot reach alone - behind an edge proxy (a Route in its URI:
     * the binding's Path, RFC 3327), over TCP or TLS, {@code sips:}, or named by a host name the
     * front would have to resolve - the call goes to the node instead, which knows how: the
     * front still keeps the call's state.
     */
    static List<KeptTarget> of(SIPResponse redirect, Node node) {
        var contacts = new ArrayList<Contact>();
        for (var it = redirect.getHeaders(ContactHeader.NAME); it.hasNext(); ) {
            contacts.add((Contact) it.next());
        }
        contacts.sort(Comparator.comparingDouble(KeptTarget::q).reversed());
        var targets = new ArrayList<KeptTarget>(contacts.size());
        for (Contact contact : contacts) {
            KeptTarget target = direct(contact);
            if (target == null) {
                return List.of(new KeptTarget(null, node.address(), node));
            }
            targets.add(target);
        }
        return targets;
    }

    /** Whether the request goes to the node (which proxies it) rather than to a contact. */
    boolean viaNode() {
        return node != null;
    }

    private static KeptTarget direct(Contact contact) {
        if (!(contact.getAddress().getURI() instanceof SipUri uri) || uri.getHeaderNames().hasNext()) {
            return null;
        }
        InetSocketAddress address = udpAddress(uri);
        return address == null ? null : new KeptTarget(uri, address, null);
    }

    /** The UDP address a sip: URI names by IP, or null: another transport, or a host name the front would have to resolve. */
    static InetSocketAddress udpAddress(SipUri uri) {
        String transport = uri.getTransportParam();
        if (uri.isSecure() || transport != null && !"udp".equalsIgnoreCase(transport)) {
            return null;
        }
        return ViaPath.responseAddress(ViaPath.strip(uri.getHost()), uri.getPort(), null, null); // an IP address, 5060 if no port
    }

    private static double q(Contact contact) {
        float q = contact.getQValue();
        return q < 0 ? 1.0 : q; // no q: 1.0 (RFC 3261 §10.2.1.2)
    }
}
