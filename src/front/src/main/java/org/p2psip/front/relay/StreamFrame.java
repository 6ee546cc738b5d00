package org.p2psip.front.relay;

import gov.nist.javax.sip.message.SIPMessage;

/**
 * One message cut from a TCP or TLS stream, with its bytes as they came, which the front checks
 * before it believes any parse ({@link Forwarder#refusedAsInvalid}). {@code message} is JAIN-SIP's
 * parse when the framer needed it to find the body's length; null either when the head did not
 * parse (the bytes are the head alone, and the stream ends after it) or, with {@code unparsed},
 * when the framer read the Content-Length where it lies and left the parse to whoever needs it:
 * the kept path does not ({@link Inbound#accept(StreamFrame, java.net.InetSocketAddress, long)}).
 */
public record StreamFrame(SIPMessage message, byte[] bytes, boolean unparsed) {

    /** A message framed from its head as JAIN-SIP parsed it (null: the head did not parse). */
    public StreamFrame(SIPMessage message, byte[] bytes) {
        this(message, bytes, false);
    }

    /** A whole message framed by its Content-Length read where it lies, not parsed. */
    public static StreamFrame unparsed(byte[] bytes) {
        return new StreamFrame(null, bytes, true);
    }
}
