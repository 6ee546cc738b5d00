package org.p2psip.intake;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import org.p2psip.lazysip.SipLines;
import org.p2psip.lazysip.ByteEdits;

/**
 * A branch for a request of an RFC 2543 client, whose top Via has none with RFC 3261's magic
 * cookie. The container answers such a request nothing at all (RFC 4475 §3.4.1's INVITE, and any
 * request without a branch, got no answer), though RFC 3261 §17.2.3 says how a server matches
 * it: by its Request-URI, From, Call-ID, CSeq number and top Via. A branch derived from exactly
 * those is the same for the request's retransmissions, for the ACK of a final answer that is no
 * 2xx and for a CANCEL of it, so the stack's transactions match them as RFC 2543 asks; an old
 * branch without the cookie is replaced, since it identified nothing to RFC 3261. The answers
 * carry the branch in the client's Via, where an RFC 2543 client matches nothing. Stateless.
 */
final class Rfc2543Branch {

    static final String PREFIX = "z9hG4bK-2543-";

    private Rfc2543Branch() {
    }

    /** The request with a derived branch in its top Via; null when it has an RFC 3261 branch or cannot be read. */
    static byte[] added(byte[] data, int offset, int length) {
        byte[] bytes = java.util.Arrays.copyOfRange(data, offset, offset + length);
        SipLines lines = SipLines.of(bytes);
        int v = lines == null ? -1 : lines.find("via", 0);
        if (v < 0 || lines.folded[v]) {
            return null;
        }
        int comma = lines.firstComma(v);
        int valueEnd = comma < 0 ? lines.valueEnd[v] : comma;
        String via = new String(bytes, lines.valueStart[v], valueEnd - lines.valueStart[v], StandardCharsets.ISO_8859_1);
        int[] branch = branchParam(via);
        if (branch != null && via.regionMatches(true, branch[0], "z9hG4bK", 0, 7)) {
            return null;
        }
        String startLine = lines.startLine();
        int sp1 = startLine.indexOf(' ');
        int sp2 = startLine.lastIndexOf(' ');
        String cseq = lines.single("cseq");
        String key = String.join("\n", startLine.substring(sp1 + 1, Math.max(sp1 + 1, sp2)),
                branch == null ? via.trim() : (via.substring(0, branch[0]) + via.substring(branch[1])).trim(),
                String.valueOf(lines.single("from")), String.valueOf(lines.single("call-id")),
                cseq == null ? "" : cseq.split("[ \t]", 2)[0]);
        String derived = PREFIX + HexFormat.of().formatHex(sha256(key), 0, 8);
        var edits = new ArrayList<ByteEdits.Edit>(1);
        int base = lines.valueStart[v];
        edits.add(branch == null ? new ByteEdits.Edit(base + via.stripTrailing().length(), base + via.stripTrailing().length(),
                ";branch=" + derived) : new ByteEdits.Edit(base + branch[0], base + branch[1], derived));
        return ByteEdits.apply(bytes, edits);
    }

    /** Where the value of a Via value's branch parameter lies, [start, end), or null if it has none. */
    private static int[] branchParam(String via) {
        int at = 0;
        while ((at = via.indexOf(';', at)) >= 0) {
            int name = at + 1;
            while (name < via.length() && (via.charAt(name) == ' ' || via.charAt(name) == '\t')) {
                name++;
            }
            if (via.regionMatches(true, name, "branch", 0, 6)) {
                int eq = name + 6;
                while (eq < via.length() && (via.charAt(eq) == ' ' || via.charAt(eq) == '\t')) {
                    eq++;
                }
                if (eq < via.length() && via.charAt(eq) == '=') {
                    int start = eq + 1;
                    while (start < via.length() && (via.charAt(start) == ' ' || via.charAt(start) == '\t')) {
                        start++;
                    }
                    int end = start;
                    while (end < via.length() && ";, \t".indexOf(via.charAt(end)) < 0) {
                        end++;
                    }
                    return new int[] {start, end};
                }
            }
            at = name;
        }
        return null;
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.ISO_8859_1));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
