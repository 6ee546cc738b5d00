package org.p2psip.front.calls;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToLongFunction;
import org.p2psip.front.nodes.Node;
import org.p2psip.front.wire.Destination;

/**
 * Where a kept call rings next: a contact the node handed back in its 302, reached over UDP at
 * its IP address or down a client's TCP or TLS connection that this front holds (its flow), or -
 * when the front cannot reach a contact itself - the node, which then proxies the call as it does
 * for a stateless front. Immutable.
 */
record KeptTarget(SipUriText uri, InetSocketAddress address, Node node, long flow) {

    /**
     * The targets of a 302, highest q first (the node lists them so; equal q keep its order). A
     * contact registered through one of this front's flows carries that flow's Path as the one
     * Route header of its URI; {@code flowOf} says which connection such a Route value names (-1:
     * none of this front's), and the contact is rung down that connection. If any contact is one
     * the front cannot reach alone - behind another edge proxy (any other Route in its URI, RFC
     * 3327), over TCP or TLS without a flow of the front's, {@code sips:}, or named by a host
     * name the front would have to resolve - the call goes to the node instead, which knows how:
     * the front still keeps the call's state.
     */
    static List<KeptTarget> of(Message redirect, Node node, ToLongFunction<String> flowOf) {
        var contacts = new ArrayList<>(Contacts.of(redirect));
        contacts.sort(Comparator.comparingDouble(Contacts.Value::q).reversed());
        var targets = new ArrayList<KeptTarget>(contacts.size());
        for (Contacts.Value contact : contacts) {
            KeptTarget target = direct(contact.uri(), flowOf);
            if (target == null) {
                return List.of(new KeptTarget(null, node.address(), node, Destination.UDP));
            }
            targets.add(target);
        }
        return targets;
    }

    /** Whether the request goes to the node (which proxies it) rather than to a contact. */
    boolean viaNode() {
        return node != null;
    }

    /** Whether the contact is rung down a client's TCP or TLS connection. */
    boolean overFlow() {
        return flow != Destination.UDP;
    }

    private static KeptTarget direct(SipUriText uri, ToLongFunction<String> flowOf) {
        if (!uri.sip()) {
            return null;
        }
        if (uri.headers()) {
            String text = uri.text();
            int question = text.indexOf('?', text.lastIndexOf('@') + 1);
            String route = onlyRoute(text.substring(question + 1));
            long flow = route == null ? -1 : flowOf.applyAsLong(route);
            return flow <= 0 ? null : new KeptTarget(SipUriText.of(text.substring(0, question)), null, null, flow);
        }
        InetSocketAddress address = uri.udpAddress();
        return address == null ? null : new KeptTarget(uri, address, null, Destination.UDP);
    }

    /** The value of a URI's headers (RFC 3261 §19.1.1) when they are one Route header, unescaped; else null. */
    private static String onlyRoute(String headers) {
        if (headers.indexOf('&') >= 0 || !headers.regionMatches(true, 0, "Route=", 0, 6)) {
            return null;
        }
        String escaped = headers.substring(6);
        var out = new ByteArrayOutputStream(escaped.length());
        for (int i = 0; i < escaped.length(); i++) {
            char c = escaped.charAt(i);
            if (c != '%') {
                out.write(c);
                continue;
            }
            int value = i + 2 < escaped.length() ? hex(escaped.charAt(i + 1)) * 16 + hex(escaped.charAt(i + 2)) : -1;
            if (value < 0) {
                return null;
            }
            out.write(value);
            i += 2;
        }
        return out.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static int hex(char c) {
        int digit = Character.digit(c, 16);
        return digit < 0 ? -256 : digit;
    }
}
