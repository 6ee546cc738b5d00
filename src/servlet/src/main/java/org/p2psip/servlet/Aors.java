package org.p2psip.servlet;

import javax.servlet.sip.SipURI;
import javax.servlet.sip.URI;
import org.p2psip.registrar.Domains;

/**
 * The one place that turns a SIP URI into the address-of-record key the DHT stores under:
 * {@code sip:user@domain}, the domain the host names ({@link Domains}: in lower case, the node's
 * own address standing for the default domain), without port, parameters or the sips scheme,
 * so that a REGISTER's To and an INVITE's Request-URI for the same user meet at the same key.
 */
final class Aors {

    private Aors() {
    }

    /** The AOR of {@code uri}, or null when it is not a SIP URI (tel:, urn:, ...). */
    static String of(URI uri, Domains domains) {
        if (!(uri instanceof SipURI sip)) {
            return null;
        }
        String host = domains.domainOf(sip.getHost(), sip.getPort());
        String user = sip.getUser();
        return user == null || user.isEmpty() ? "sip:" + host : "sip:" + user + "@" + host;
    }

    /** The domain of an AOR this class made: what follows its last '@' (or "sip:"). */
    static String domainOf(String aor) {
        return aor.substring(Math.max(aor.lastIndexOf('@') + 1, "sip:".length()));
    }

    /** The user part of an AOR this class made; "" when it has none. */
    static String userOf(String aor) {
        int at = aor.lastIndexOf('@');
        return at < 0 ? "" : aor.substring("sip:".length(), at);
    }
}
