package org.p2psip.registrar;

/**
 * Every way the registrar refuses a REGISTER, with its SIP status and reason phrase: the one
 * table that maps registrar errors to responses.
 */
public enum Rejection {
    WILDCARD_NOT_ALONE(400, "Wildcard Contact Must Be Alone"),
    WILDCARD_WITHOUT_EXPIRES_ZERO(400, "Wildcard Contact Requires Expires: 0"),
    INTERVAL_TOO_BRIEF(423, "Interval Too Brief"),
    OUT_OF_ORDER(500, "Out of Order Request"),
    TOO_MANY_CONTACTS(403, "Too Many Registered Contacts"),
    /** Path without Supported: path (RFC 3327 §5.3's recommended policy); answered with Unsupported: path. */
    PATH_NOT_SUPPORTED(420, "Bad Extension"),
    /** An outbound REGISTER (RFC 5626 §6) whose first hop, the last Path entry, did not mark itself ob. */
    FIRST_HOP_LACKS_OUTBOUND(439, "First Hop Lacks Outbound Support");

    private final int status;
    private final String reason;

    Rejection(int status, String reason) {
        this.status = status;
        this.reason = reason;
    }

    public int status() {
        return status;
    }

    public String reason() {
        return reason;
    }
}
