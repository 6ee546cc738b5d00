package org.p2psip.servlet;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.servlet.sip.SipServletRequest;
import gov.nist.javax.sip.message.SIPMessage;
import org.mobicents.servlet.sip.core.message.MobicentsSipServletMessage;

/**
 * The headers of a request that the container's parser could not read. JAIN-SIP refuses a
 * message only when a mandatory header (Via, From, To, Call-ID, CSeq) is broken; any other
 * broken header is left out of the parsed message and kept aside as text. Without this view a
 * REGISTER with a malformed Contact would read as one without Contact (a query, answered 200)
 * and a non-numeric Expires as no Expires at all.
 */
final class UnparsedHeaders {

    private final List<String> names;

    private UnparsedHeaders(List<String> names) {
        this.names = names;
    }

    static UnparsedHeaders of(SipServletRequest request) {
        List<String> lines = new ArrayList<>();
        if (request instanceof MobicentsSipServletMessage message && message.getMessage() instanceof SIPMessage sip) {
            sip.getUnrecognizedHeaders().forEachRemaining(lines::add);
        }
        return fromLines(lines);
    }

    /** From raw header lines ("Name: value"); the names are kept in their long form, lower case. */
    static UnparsedHeaders fromLines(List<String> lines) {
        List<String> names = new ArrayList<>();
        for (String line : lines) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                names.add(longForm(line.substring(0, colon).trim().toLowerCase(Locale.ROOT)));
            }
        }
        return new UnparsedHeaders(names);
    }

    /** Whether a header of this name (long form, any case) was present but could not be parsed. */
    boolean contains(String name) {
        return names.contains(name.toLowerCase(Locale.ROOT));
    }

    /** RFC 3261 §7.3.3 compact forms of the headers a REGISTER is read from. */
    private static String longForm(String name) {
        return switch (name) {
            case "m" -> "contact";
            case "t" -> "to";
            case "f" -> "from";
            case "i" -> "call-id";
            default -> name;
        };
    }
}
