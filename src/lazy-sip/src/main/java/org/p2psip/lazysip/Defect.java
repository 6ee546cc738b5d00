package org.p2psip.lazysip;

/**
 * What makes a request not valid SIP ({@link RequestSyntax}), each with the one status and reason
 * phrase the node's intake and the front answer it with: 505 for a SIP version other than 2.0,
 * 416 for a Request-URI scheme other than sip or sips (RFC 3261 §8.2.2.1), 400 for the rest. The
 * phrases the servlet also uses for a REGISTER it cannot read are the same words.
 */
public enum Defect {

    /** Not {@code Method SP Request-URI SP SIP-Version}: several spaces, trailing ones, no version, a method that is no token. */
    MALFORMED_REQUEST_LINE(400, "Malformed Request-Line"),
    /** A well-formed version other than SIP/2.0 (RFC 3261 §21.5.6). */
    VERSION_NOT_SUPPORTED(505, "Version Not Supported"),
    /** A Request-URI of a scheme other than sip and sips: the node serves no other. */
    UNSUPPORTED_URI_SCHEME(416, "Unsupported URI Scheme"),
    /** A sip or sips Request-URI that does not read: a port that is no number, headers (RFC 3261 §19.1.1), angle brackets. */
    MALFORMED_REQUEST_URI(400, "Malformed Request-URI"),
    /** A header line without a colon, or whose name is no token. */
    MALFORMED_HEADER_LINE(400, "Malformed Header Line"),
    /** No Via: there is nowhere to send an answer (RFC 3261 §18.2.2), so the request is dropped, not answered. */
    MISSING_VIA(400, "Missing Via Header"),
    MISSING_FROM(400, "Missing From Header"),
    MISSING_TO(400, "Missing To Header"),
    MISSING_CALL_ID(400, "Missing Call-ID Header"),
    MISSING_CSEQ(400, "Missing CSeq Header"),
    MULTIPLE_FROM(400, "Multiple From Headers"),
    MULTIPLE_TO(400, "Multiple To Headers"),
    MULTIPLE_CALL_ID(400, "Multiple Call-ID Headers"),
    MULTIPLE_CSEQ(400, "Multiple CSeq Headers"),
    MULTIPLE_MAX_FORWARDS(400, "Multiple Max-Forwards Headers"),
    MULTIPLE_CONTENT_LENGTH(400, "Multiple Content-Length Headers"),
    MALFORMED_VIA(400, "Malformed Via Header"),
    MALFORMED_FROM(400, "Malformed From Header"),
    MALFORMED_TO(400, "Malformed To Header"),
    MALFORMED_CONTACT(400, "Malformed Contact Header"),
    /** Empty, or holding white space or a comma (two values). */
    INVALID_CALL_ID(400, "Invalid Call-ID"),
    /** Not {@code number method} with the number below 2**31 (RFC 3261 §8.1.1.5). */
    INVALID_CSEQ(400, "Invalid CSeq"),
    /** The CSeq names another method than the request line. */
    CSEQ_METHOD_MISMATCH(400, "CSeq Method Does Not Match"),
    /** Not a number from 0 to 255 (RFC 3261 §20.22). */
    INVALID_MAX_FORWARDS(400, "Invalid Max-Forwards"),
    /** Not a number: negative, a word. */
    INVALID_CONTENT_LENGTH(400, "Invalid Content-Length"),
    /** Over UDP the datagram ends before the body Content-Length announces (RFC 3261 §18.3). */
    BODY_SHORTER_THAN_CONTENT_LENGTH(400, "Body Shorter Than Content-Length");

    public final int status;
    public final String reason;

    Defect(int status, String reason) {
        this.status = status;
        this.reason = reason;
    }
}
