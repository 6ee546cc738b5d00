package org.p2psip.front.calls;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.p2psip.front.nodes.Node;

/**
 * Where a kept call rings next: a contact the node handed back in its 302, reached over UDP at
 * its IP address, or - when the front cannot reach a contact itself - the node, which then proxies
 * the call as it does for a stateless front. Immutable.
 */
record KeptTarget(SipUriText uri, InetSocketAddress address, Node node) {

    /**
     * The targets of a 302, highest q first (the node lists them so; equal q keep its order). If
     * any contact is one the front cannot reach alone - behind an edge proxy (a Route in its URI:
     * the binding's Path, RFC 3327), over TCP or TLS, {@code sips:}, or named by a host name the
     * front would have to resolve - the call goes to the node instead, which knows how: the
     * front still keeps the call's state.
     */
    static List<KeptTarget> of(Message redirect, Node node) {
        var contacts = new ArrayList<>(Contacts.of(redirect));
        contacts.sort(Comparator.comparingDouble(Contacts.Value::q).reversed());
        var targets = new ArrayList<KeptTarget>(contacts.size());
        for (Contacts.Value contact : contacts) {
            KeptTarget target = direct(contact.uri());
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

    private static KeptTarget direct(SipUriText uri) {
        if (!uri.sip() || uri.headers()) {
            return null;
        }
        InetSocketAddress address = uri.udpAddress();
        return address == null ? null : new KeptTarget(uri, address, null);
    }
}
