package org.p2psip.dht.bryan;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The DHT-Auth header: HMAC-SHA256 under the overlay's shared secret over a canonical text of the
 * message (see the README for its exact lines). A response's text includes its request's DHT-Auth
 * value, which binds the answer to the question. Thread-safe.
 * <pre>DHT-Auth: hmac-sha256=BASE64</pre>
 */
final class Signature {

    static final String NAME = "DHT-Auth";
    private static final String PREFIX = "hmac-sha256=";

    /**
     * One keyed MAC and one digest per thread: {@code getInstance} looks the provider up and
     * {@code init} expands the key on every call, which showed among a loaded peer loop's samples.
     * {@code doFinal} and {@code digest} reset them for the next use.
     */
    private final ThreadLocal<Mac> mac;
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    });

    Signature(String secret) {
        var key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
        this.mac = ThreadLocal.withInitial(() -> {
            try {
                Mac m = Mac.getInstance("HmacSHA256");
                m.init(key);
                return m;
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
            }
        });
    }

    /** The request with a DHT-Auth header appended. */
    PeerRequest sign(PeerRequest request) {
        return request.with(new PeerHeader(NAME, value(requestText(request))));
    }

    /** The response with a DHT-Auth header appended, bound to the request's own DHT-Auth. */
    PeerResponse sign(PeerResponse response, String requestAuth) {
        var headers = new java.util.ArrayList<>(response.headers());
        headers.add(new PeerHeader(NAME, value(responseText(response, requestAuth))));
        return new PeerResponse(response.status(), response.reason(), response.contact(), headers,
                response.contentType(), response.body());
    }

    /** Whether the request carries exactly one DHT-Auth and it verifies. */
    boolean verifies(PeerRequest request) {
        List<String> auth = request.values(NAME);
        return auth.size() == 1 && equal(auth.get(0), value(requestText(request)));
    }

    boolean verifies(PeerResponse response, String requestAuth) {
        List<String> auth = response.values(NAME);
        return auth.size() == 1 && equal(auth.get(0), value(responseText(response, requestAuth)));
    }

    static String authOf(PeerRequest request) {
        List<String> auth = request.values(NAME);
        return auth.isEmpty() ? "" : auth.get(0);
    }

    private static String requestText(PeerRequest r) {
        return "REGISTER\n" + r.target() + "\n" + r.peerUri() + "\n" + r.expires() + "\n" + headerLines(r.headers())
                + r.contentType() + "\n" + digest(r.body());
    }

    private static String responseText(PeerResponse r, String requestAuth) {
        return r.status() + "\n" + requestAuth + "\n" + unbracketed(r.contact().trim()) + "\n" + headerLines(r.headers())
                + r.contentType() + "\n" + digest(r.body());
    }

    /**
     * The DHT-* header values as lines, grouped by name in alphabetical order, each name's values
     * in their order: SIP keeps the order of values within one header name, but a container or
     * parser may regroup different names or join one name's values with commas.
     */
    private static String headerLines(List<PeerHeader> headers) {
        var byName = new java.util.TreeMap<String, List<String>>();
        for (PeerHeader h : headers) {
            String name = h.name().toLowerCase(java.util.Locale.ROOT);
            if (!name.equals("dht-auth")) {
                h.parts().forEach(part -> byName.computeIfAbsent(name, n -> new java.util.ArrayList<>()).add(part));
            }
        }
        var text = new StringBuilder();
        byName.forEach((name, values) -> values.forEach(v -> text.append(name).append(':').append(v).append('\n')));
        return text.toString();
    }

    private String value(String text) {
        return PREFIX + Base64.getEncoder().encodeToString(mac.get().doFinal(text.getBytes(StandardCharsets.UTF_8)));
    }

    private static String digest(byte[] body) {
        return HexFormat.of().formatHex(SHA256.get().digest(body));
    }

    /** The contact without its angle brackets, as {@code replaceAll("^<|>$", "")} did, without a regex per answer. */
    private static String unbracketed(String contact) {
        int from = contact.startsWith("<") ? 1 : 0;
        int to = contact.endsWith(">") && contact.length() > from ? contact.length() - 1 : contact.length();
        return contact.substring(from, to);
    }

    private static boolean equal(String a, String b) {
        return MessageDigest.isEqual(a.trim().getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }
}
