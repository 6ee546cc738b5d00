package org.p2psip.servlet;

import java.util.Locale;
import java.util.Set;
import javax.servlet.sip.SipServletRequest;

/**
 * What the request line must be before a request takes any DHT work. The container's parser lets
 * Request-URIs of any scheme through, and such a request was served 200. (A SIP version other than
 * 2.0 it reads as 2.0; the node's UDP intake, which sees the bytes, answers those 505.)
 */
final class RequestLine {

    private static final Set<String> SCHEMES = Set.of("sip", "sips", "tel");

    private RequestLine() {
    }

    /** 416 for a Request-URI scheme the node does not know (RFC 3261 §8.2.2.1); null when it is fine. */
    static BadRequest refusal(SipServletRequest request) {
        String scheme = request.getRequestURI().getScheme();
        if (scheme == null || !SCHEMES.contains(scheme.toLowerCase(Locale.ROOT))) {
            return new BadRequest(416, "Unsupported URI Scheme");
        }
        return null;
    }
}
