package org.p2psip.registrar;

import java.util.List;

/**
 * A REGISTER reduced to what the registrar rules read; the servlet builds it from the SIP
 * message and has already answered 400 to anything that would not parse.
 *
 * @param aor      the normalised address-of-record of the To header
 * @param callId   the Call-ID
 * @param cseq     the CSeq number
 * @param expires  the Expires header in seconds, or null if absent
 * @param wildcard true for {@code Contact: *}
 * @param contacts the Contacts (empty for a query and for the wildcard)
 * @param path     the Path header values, outermost first
 */
public record RegisterRequest(String aor, String callId, long cseq, Long expires, boolean wildcard,
                              List<ContactSpec> contacts, List<String> path) {

    public RegisterRequest {
        contacts = List.copyOf(contacts);
        path = List.copyOf(path);
    }

    public boolean isQuery() {
        return !wildcard && contacts.isEmpty();
    }
}
