package org.p2psip.front.wire;

import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.parser.StringMsgParser;
import java.text.ParseException;

/**
 * Parses SIP messages with JAIN-SIP's parser. Thread-safe: each thread has its own parser, since
 * JAIN-SIP does not promise its parser may be shared.
 */
public final class SipParser {

    private static final ThreadLocal<StringMsgParser> PARSER = ThreadLocal.withInitial(StringMsgParser::new);

    private SipParser() {
    }

    /**
     * Parses one whole message; with {@code readBody} false only the start line and headers are
     * read (the stream framer adds the body itself).
     *
     * @throws ParseException if the bytes are not a SIP message
     */
    public static SIPMessage parse(byte[] bytes, boolean readBody) throws ParseException {
        SIPMessage message;
        try {
            message = PARSER.get().parseSIPMessage(bytes, readBody, false, null);
        } catch (RuntimeException e) {
            // The parser throws unchecked exceptions on some malformed input; it is still bad input.
            throw new ParseException("unparsable: " + e, 0);
        }
        if (message == null) {
            throw new ParseException("no SIP message in " + bytes.length + " bytes", 0);
        }
        return message;
    }
}
