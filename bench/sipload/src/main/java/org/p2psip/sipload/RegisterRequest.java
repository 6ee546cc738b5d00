package org.p2psip.sipload;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The bytes of one REGISTER (RFC 3261 §10.2): Request-URI the AOR's domain, To and From the AOR,
 * the phone's Call-ID and CSeq, a Contact at the phone's address (the load's UDP socket, or its
 * TCP or TLS connection: it listens nowhere else), Expires, and Authorization when it answers a challenge.
 * As an RFC 5626 client (outbound) the Contact carries the phone's instance and reg-id 1 and the
 * request says it supports outbound and path.
 */
final class RegisterRequest {
    static final String METHOD = "REGISTER";

    /** An address of the load's, in Via and Contact. */
    record Local(String host, int port) {
    }

    private RegisterRequest() {
    }

    /** The Request-URI, which is also the digest-uri of the Authorization. */
    static String requestUri(User user) {
        return "sip:" + user.domain();
    }

    /** The URI of a phone's Contact at {@code local}; {@code transport} "udp" (the default, left out), "tcp" or "tls". */
    static String contactUri(User user, Local local, String transport) {
        String host = local.host().indexOf(':') >= 0 ? "[" + local.host() + "]" : local.host();
        String uri = "sip:" + user.name() + "@" + host + ":" + local.port();
        return transport.equals("udp") ? uri : uri + ";transport=" + transport;
    }

    /**
     * The REGISTER of {@code phone} from its {@link Phone#via} and {@link Phone#contactUri}, over
     * {@code transport} ("udp", "tcp", "tls"); {@code outbound}: as an RFC 5626 client.
     */
    static byte[] build(Phone phone, String transport, boolean outbound, String branch, int expires,
                        String authorization) {
        User user = phone.user;
        Local local = phone.via;
        var text = new StringBuilder(authorization == null ? 400 : 700)
                .append(METHOD).append(' ').append(requestUri(user)).append(" SIP/2.0\r\n")
                .append("Via: SIP/2.0/").append(transport.toUpperCase(Locale.ROOT)).append(' ')
                .append(local.host()).append(':').append(local.port())
                .append(";branch=").append(branch).append(";rport\r\n")
                .append("Max-Forwards: 70\r\n")
                .append("From: <").append(user.aor()).append(">;tag=").append(phone.fromTag).append("\r\n")
                .append("To: <").append(user.aor()).append(">\r\n")
                .append("Call-ID: ").append(phone.callId).append("\r\n")
                .append("CSeq: ").append(phone.cseq).append(' ').append(METHOD).append("\r\n")
                .append("Contact: <").append(phone.contactUri).append('>');
        if (outbound) {
            // RFC 5626 §4.2.1: the instance and reg-id make this connection a flow of the phone's.
            text.append(";+sip.instance=\"<").append(phone.instanceUrn()).append(">\";reg-id=1\r\n")
                    .append("Supported: outbound, path\r\n");
        } else {
            text.append("\r\n");
        }
        text.append("Expires: ").append(expires).append("\r\n");
        if (authorization != null) {
            text.append("Authorization: ").append(authorization).append("\r\n");
        }
        text.append("User-Agent: p2psip-sipload\r\n")
                .append("Content-Length: 0\r\n\r\n");
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }
}
