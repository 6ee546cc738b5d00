package org.p2psip.registrar;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A REGISTER reduced to what the registrar rules read; the servlet builds it from the SIP
 * message and has already answered 400 to anything that would not parse.
 *
 * @param aor       the normalised address-of-record of the To header
 * @param callId    the Call-ID
 * @param cseq      the CSeq number
 * @param expires   the Expires header in seconds, or null if absent
 * @param wildcard  true for {@code Contact: *}
 * @param contacts  the Contacts (empty for a query and for the wildcard)
 * @param path      the Path header values, outermost first
 * @param supported the option tags of the Supported headers, in lower case ("path", "gruu", ...)
 */
public record RegisterRequest(String aor, String callId, long cseq, Long expires, boolean wildcard,
                              List<ContactSpec> contacts, List<String> path, Set<String> supported) {

    public RegisterRequest {
        contacts = List.copyOf(contacts);
        path = List.copyOf(path);
        supported = supported.stream().map(tag -> tag.strip().toLowerCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
    }

    /** A REGISTER whose client names no extension it supports. */
    public RegisterRequest(String aor, String callId, long cseq, Long expires, boolean wildcard,
                           List<ContactSpec> contacts, List<String> path) {
        this(aor, callId, cseq, expires, wildcard, contacts, path, Set.of());
    }

    public boolean isQuery() {
        return !wildcard && contacts.isEmpty();
    }

    /**
     * Whether the client asks for outbound (RFC 5626 §4.2): it supports it and registers a
     * contact with an instance and a reg-id.
     */
    public boolean asksOutbound() {
        return supports("outbound") && contacts.stream().anyMatch(c -> c.regId() > 0 && !c.instance().isEmpty());
    }

    /**
     * Whether the first hop, the edge proxy that added the last Path entry, keeps the client's
     * flow and said so with {@code ob} (RFC 5626 §5.1). False with no Path.
     */
    public boolean firstHopOutbound() {
        if (path.isEmpty()) {
            return false;
        }
        String entry = path.get(path.size() - 1);
        int open = entry.indexOf('<');
        int close = entry.indexOf('>', open + 1);
        SipUri uri = SipUri.parse((open >= 0 && close > open ? entry.substring(open + 1, close) : entry).strip());
        return uri != null && uri.params().containsKey("ob");
    }

    /** Whether the client's bindings are outbound flows: it asked, and its first hop keeps them. */
    public boolean usesOutbound() {
        return asksOutbound() && firstHopOutbound();
    }

    /** Whether the client said {@code Supported: tag} (option tags compared in any case). */
    public boolean supports(String tag) {
        return supported.contains(tag.toLowerCase(Locale.ROOT));
    }
}
