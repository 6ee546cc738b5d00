package org.p2psip.sipload;

import java.nio.charset.StandardCharsets;

/**
 * The bytes of one REGISTER (RFC 3261 §10.2): Request-URI the AOR's domain, To and From the AOR,
 * the phone's Call-ID and CSeq, a Contact at the load's own address, Expires, and Authorization
 * when it answers a challenge.
 */
final class RegisterRequest {
    static final String METHOD = "REGISTER";

    /** The load's own address, in Via and Contact. */
    record Local(String host, int port) {
    }

    private RegisterRequest() {
    }

    /** The Request-URI, which is also the digest-uri of the Authorization. */
    static String requestUri(User user) {
        return "sip:" + user.domain();
    }

    static byte[] build(Local local, Phone phone, String branch, int expires, String authorization) {
        User user = phone.user;
        var text = new StringBuilder(authorization == null ? 400 : 700)
                .append(METHOD).append(' ').append(requestUri(user)).append(" SIP/2.0\r\n")
                .append("Via: SIP/2.0/UDP ").append(local.host()).append(':').append(local.port())
                .append(";branch=").append(branch).append(";rport\r\n")
                .append("Max-Forwards: 70\r\n")
                .append("From: <").append(user.aor()).append(">;tag=").append(phone.fromTag).append("\r\n")
                .append("To: <").append(user.aor()).append(">\r\n")
                .append("Call-ID: ").append(phone.callId).append("\r\n")
                .append("CSeq: ").append(phone.cseq).append(' ').append(METHOD).append("\r\n")
                .append("Contact: <sip:").append(user.name()).append('@').append(local.host()).append(':')
                .append(local.port()).append(">\r\n")
                .append("Expires: ").append(expires).append("\r\n");
        if (authorization != null) {
            text.append("Authorization: ").append(authorization).append("\r\n");
        }
        text.append("User-Agent: p2psip-sipload\r\n")
                .append("Content-Length: 0\r\n\r\n");
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }
}
