package org.p2psip.servlet;

import java.util.Locale;
import javax.servlet.sip.SipURI;
import javax.servlet.sip.URI;

/**
 * The one place that turns a SIP URI into the address-of-record key the DHT stores under:
 * {@code sip:user@host}, host in lower case, without port, parameters or the sips scheme, so
 * that a REGISTER's To and an INVITE's Request-URI for the same user meet at the same key.
 */
final class Aors {

    private Aors() {
    }

    /** The AOR of {@code uri}, or null when it is not a SIP URI (tel:, urn:, ...). */
    static String of(URI uri) {
        if (!(uri instanceof SipURI sip)) {
            return null;
        }
        String host = sip.getHost().toLowerCase(Locale.ROOT);
        String user = sip.getUser();
        return user == null || user.isEmpty() ? "sip:" + host : "sip:" + user + "@" + host;
    }
}
