package org.p2psip.servlet;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.ListIterator;
import java.util.Locale;
import java.util.Set;
import javax.servlet.sip.Address;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipURI;
import org.p2psip.dht.Binding;
import org.p2psip.registrar.ContactSpec;
import org.p2psip.registrar.Domains;
import org.p2psip.registrar.RegisterRequest;

/**
 * Reads a REGISTER into a {@link RegisterRequest}, refusing with a 400 and a reason phrase
 * anything the registrar rules could not work on: missing mandatory headers, a Contact that
 * does not parse, an Expires, expires parameter, q or reg-id that is not a number in range.
 * Uses the container's parser for addresses; reads nothing but the request.
 */
final class RegisterParser {

    /** RFC 3261 delta-seconds are 32-bit; longer intervals are capped to this before clamping. */
    static final long MAX_DELTA_SECONDS = 0xFFFF_FFFFL;

    private RegisterParser() {
    }

    /** Reads {@code request}, a REGISTER for one of the {@code domains} served (403 for another). */
    static RegisterRequest parse(SipServletRequest request, Domains domains) throws BadRequest {
        if (!(request.getRequestURI() instanceof SipURI)) { // the container lets any scheme through
            throw new BadRequest(416, "Unsupported URI Scheme");
        }
        if (request.getTo() == null) {
            throw new BadRequest("Missing To Header");
        }
        if (request.getFrom() == null) {
            throw new BadRequest("Missing From Header");
        }
        String callId = request.getCallId();
        if (callId == null || callId.isBlank()) {
            throw new BadRequest("Missing Call-ID Header");
        }
        String aor = Aors.of(request.getTo().getURI(), domains);
        if (aor == null) {
            throw new BadRequest("To Must Be a SIP URI");
        }
        if (!domains.serves(Aors.domainOf(aor))) {
            throw new BadRequest(403, "Domain Not Served");
        }
        long cseq = cseqOf(request.getHeader("CSeq"));
        UnparsedHeaders unparsed = UnparsedHeaders.of(request);
        if (unparsed.contains("Expires")) {
            throw new BadRequest("Invalid Expires Header");
        }
        if (unparsed.contains("Contact")) {
            throw new BadRequest("Malformed Contact Header");
        }
        Long expires = expiresHeader(request.getHeader("Expires"));
        List<Address> addresses = contacts(request);
        boolean wildcard = addresses.stream().anyMatch(Address::isWildcard);
        List<ContactSpec> contacts = new ArrayList<>();
        for (Address address : addresses) {
            if (!address.isWildcard()) {
                contacts.add(contact(address));
            }
        }
        return new RegisterRequest(aor, callId, cseq, expires, wildcard, contacts, headers(request, "Path"),
                optionTags(headers(request, "Supported")));
    }

    private static long cseqOf(String header) throws BadRequest {
        if (header == null || header.isBlank()) {
            throw new BadRequest("Missing CSeq Header");
        }
        String number = header.trim().split("\\s+", 2)[0];
        try {
            long cseq = Long.parseLong(number);
            if (cseq < 0 || cseq > MAX_DELTA_SECONDS) {
                throw new BadRequest("Invalid CSeq");
            }
            return cseq;
        } catch (NumberFormatException e) {
            throw new BadRequest("Invalid CSeq");
        }
    }

    private static Long expiresHeader(String header) throws BadRequest {
        return header == null ? null : deltaSeconds(header, "Invalid Expires Header");
    }

    private static List<Address> contacts(SipServletRequest request) throws BadRequest {
        List<Address> addresses = new ArrayList<>();
        try {
            ListIterator<Address> it = request.getAddressHeaders("Contact");
            while (it.hasNext()) {
                addresses.add(it.next());
            }
        } catch (ServletParseException | IllegalArgumentException e) {
            throw new BadRequest("Malformed Contact Header");
        }
        return addresses;
    }

    /** Schemes a contact may have: what the proxy can send a request to (RFC 3261 §10.3 step 2 leaves it to the registrar). */
    private static final List<String> CONTACT_SCHEMES = List.of("sip", "sips", "tel");

    private static ContactSpec contact(Address address) throws BadRequest {
        if (!CONTACT_SCHEMES.contains(address.getURI().getScheme().toLowerCase(Locale.ROOT))) {
            throw new BadRequest("Unsupported Contact URI Scheme"); // an INVITE to it would hang unanswered
        }
        String expires = address.getParameter("expires");
        String instance = address.getParameter("+sip.instance");
        String regId = address.getParameter("reg-id");
        return new ContactSpec(address.getURI().toString(),
                expires == null ? null : deltaSeconds(expires, "Invalid Contact Expires Parameter"),
                q(address.getParameter("q")),
                instance == null ? "" : instance,
                regId == null ? 0 : regId(regId));
    }

    private static long deltaSeconds(String text, String reason) throws BadRequest {
        String s = text.trim();
        if (s.isEmpty() || s.length() > 20 || !s.chars().allMatch(Character::isDigit)) {
            throw new BadRequest(reason);
        }
        return s.length() > 10 ? MAX_DELTA_SECONDS : Math.min(Long.parseLong(s), MAX_DELTA_SECONDS);
    }

    /** q-value = "0" [ "." 0*3DIGIT ] / "1" [ "." 0*3("0") ] (RFC 3261 §25.1), in thousandths. */
    static int q(String text) throws BadRequest {
        if (text == null) {
            return Binding.Q_UNSPECIFIED;
        }
        String s = text.trim().toLowerCase(Locale.ROOT);
        if (!s.matches("0(\\.[0-9]{0,3})?|1(\\.0{0,3})?")) {
            throw new BadRequest("Invalid q Value");
        }
        return (int) Math.round(Double.parseDouble(s) * 1000);
    }

    private static int regId(String text) throws BadRequest {
        try {
            int value = Integer.parseInt(text.trim());
            if (value < 1) {
                throw new BadRequest("Invalid reg-id");
            }
            return value;
        } catch (NumberFormatException e) {
            throw new BadRequest("Invalid reg-id");
        }
    }

    /**
     * The option tags of Supported header values ("path, gruu"): a header may list several, and
     * the container hands over each header as it came. The registrar compares them in any case.
     */
    static Set<String> optionTags(List<String> supported) {
        Set<String> tags = new HashSet<>();
        for (String value : supported) {
            for (String tag : value.split(",")) {
                if (!tag.isBlank()) {
                    tags.add(tag.strip().toLowerCase(Locale.ROOT));
                }
            }
        }
        return tags;
    }

    private static List<String> headers(SipServletRequest request, String name) {
        List<String> values = new ArrayList<>();
        request.getHeaders(name).forEachRemaining(values::add);
        return values;
    }
}
