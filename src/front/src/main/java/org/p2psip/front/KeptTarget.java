package org.p2psip.front;

import gov.nist.javax.sip.address.SipUri;
import gov.nist.javax.sip.header.Contact;
import gov.nist.javax.sip.message.SIPResponse;
import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import javax.sip.header.ContactHeader;

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
        String host = uri.getHost();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        byte[] ip = NetUtil.createByteArrayFromIpAddressString(host);
        if (ip == null) {
            return null;
        }
        try {
            int port = uri.getPort() > 0 ? uri.getPort() : 5060;
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        } catch (UnknownHostException e) {
            return null; // cannot happen for a 4- or 16-byte address
        }
    }

    private static double q(Contact contact) {
        float q = contact.getQValue();
        return q < 0 ? 1.0 : q; // no q: 1.0 (RFC 3261 §10.2.1.2)
    }
}
