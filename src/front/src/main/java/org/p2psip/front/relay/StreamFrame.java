package org.p2psip.front.relay;

import gov.nist.javax.sip.message.SIPMessage;

/**
 * One message cut from a TCP or TLS stream: as JAIN-SIP parsed it (null when its head did not
 * parse, and the stream ends after it), and its bytes as they came (the head alone then), which
 * the front checks before it believes the parse ({@link Forwarder#refusedAsInvalid}).
 */
public record StreamFrame(SIPMessage message, byte[] bytes) {
}
