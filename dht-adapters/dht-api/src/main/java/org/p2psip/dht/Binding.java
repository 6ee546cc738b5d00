package org.p2psip.dht;

import java.util.List;
import java.util.Objects;

/**
 * One contact bound to an address-of-record, as a registrar keeps it (RFC 3261 §10.3; the
 * fields follow Kamailio's usrloc record). Immutable and safe to share between threads.
 *
 * @param aor       the address-of-record, normalised by the registrar ("sip:alice@example.com")
 * @param contact   the contact URI as the user agent gave it, without header parameters
 * @param expiresAt absolute expiry, milliseconds since the epoch; the binding is gone from then on
 * @param q         preference in thousandths (0..1000), or {@link #Q_UNSPECIFIED} when the UA gave none
 * @param callId    Call-ID of the REGISTER that made or last refreshed the binding
 * @param cseq      CSeq number of that REGISTER
 * @param path      Path header values of that REGISTER (RFC 3327), outermost first; empty if none
 * @param instance  the contact's {@code +sip.instance} parameter (RFC 5626), or "" if none
 * @param regId     the contact's {@code reg-id} parameter (RFC 5626), or 0 if none
 */
public record Binding(String aor, String contact, long expiresAt, int q, String callId, long cseq,
                      List<String> path, String instance, int regId) {

    /** The q value of a contact that carried no q parameter; it ranks as 1.0. */
    public static final int Q_UNSPECIFIED = -1;

    public Binding {
        Objects.requireNonNull(aor, "aor");
        Objects.requireNonNull(contact, "contact");
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(instance, "instance");
        path = List.copyOf(path);
        if (q != Q_UNSPECIFIED && (q < 0 || q > 1000)) {
            throw new IllegalArgumentException("q must be 0..1000 thousandths or unspecified, got " + q);
        }
        if (cseq < 0) {
            throw new IllegalArgumentException("cseq must not be negative, got " + cseq);
        }
    }

    /** The q value used to order contacts: an unspecified q ranks as 1.0. */
    public int rank() {
        return q == Q_UNSPECIFIED ? 1000 : q;
    }

    public boolean isLiveAt(long nowMillis) {
        return expiresAt > nowMillis;
    }

    /** Seconds left until expiry, rounded up, as a 200 OK to REGISTER states it. */
    public long secondsLeft(long nowMillis) {
        return secondsLeft(expiresAt, nowMillis);
    }

    /** Seconds left until {@code expiresAt}, rounded up: a binding's expires wherever a node states it. */
    public static long secondsLeft(long expiresAt, long nowMillis) {
        return Math.max(0, (expiresAt - nowMillis + 999) / 1000);
    }
}
