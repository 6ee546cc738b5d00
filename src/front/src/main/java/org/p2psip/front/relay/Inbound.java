package org.p2psip.front.relay;

import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;
import java.net.InetSocketAddress;
import org.p2psip.front.status.FrontStats;
import org.p2psip.front.wire.SipParser;

/**
 * Hands a parsed message to the forwarder, whichever transport it came on, and keeps a fault in
 * one message from reaching the transport: it is counted and the front serves on. Thread-safe.
 */
public final class Inbound {

    private static final Logger LOG = System.getLogger(Inbound.class.getName());

    private final Forwarder forwarder;
    private final FrontStats stats;

    public Inbound(Forwarder forwarder, FrontStats stats) {
        this.forwarder = forwarder;
        this.stats = stats;
    }

    public void accept(SIPMessage message, InetSocketAddress source, long connection) {
        try {
            if (message instanceof SIPRequest request) {
                forwarder.onRequest(request, source, connection);
            } else if (message instanceof SIPResponse response) {
                forwarder.onResponse(response);
            }
        } catch (RuntimeException e) {
            // JAIN-SIP may throw unchecked on odd but parsable input (e.g. a header it cannot clone).
            stats.unparsable.increment();
            LOG.log(Level.DEBUG, "message from " + source + " dropped", e);
        }
    }

    /**
     * A message from a TCP or TLS stream: refused here if it is a request that is not valid SIP
     * (then JAIN-SIP's parse, which would forward it as a valid one, is not believed); else taken
     * by the kept path where it lies if it is a kept call's, else parsed by JAIN-SIP (if the
     * framer did not) and accepted. False when the stream must close: a frame whose head did not
     * parse (the stream is closing already), or a message JAIN-SIP cannot parse (counted).
     */
    public boolean accept(StreamFrame frame, InetSocketAddress source, long connection) {
        SIPMessage message = frame.message();
        try {
            if (forwarder.refusedAsInvalid(frame.bytes(), source, connection)) {
                if (frame.unparsed()) {
                    SipParser.parse(frame.bytes(), true); // bad input only: one JAIN-SIP cannot read either closes its stream
                }
                return message != null || frame.unparsed();
            }
            if (frame.unparsed()) {
                if (forwarder.keptFromStream(frame.bytes(), source, connection)) {
                    return true;
                }
                message = SipParser.parse(frame.bytes(), true);
            }
        } catch (java.text.ParseException e) {
            stats.unparsable.increment();
            return false;
        } catch (RuntimeException e) {
            stats.unparsable.increment();
            LOG.log(Level.DEBUG, "message from " + source + " dropped", e);
            return true;
        }
        if (message == null) {
            return false;
        }
        accept(message, source, connection);
        return true;
    }

    /**
     * A datagram's bytes to the fast path; false if they must be parsed by JAIN-SIP and given to
     * {@link #accept}. A fault is counted and the bytes dropped, as there.
     */
    public boolean acceptRaw(byte[] bytes, InetSocketAddress source, long connection) {
        try {
            boolean answer = bytes.length > 8 && bytes[0] == 'S' && bytes[6] == '0' && bytes[7] == ' '
                    && new String(bytes, 0, 8, java.nio.charset.StandardCharsets.ISO_8859_1).equals("SIP/2.0 ");
            return answer ? forwarder.onResponse(bytes) : forwarder.onRequest(bytes, source, connection);
        } catch (RuntimeException e) {
            stats.unparsable.increment();
            LOG.log(Level.DEBUG, "message from " + source + " dropped", e);
            return true;
        }
    }

    public FrontStats stats() {
        return stats;
    }
}
