package org.p2psip.front.calls;

import java.util.ArrayList;
import org.p2psip.lazysip.ByteEdits;

/**
 * What the kept path changes in a message it passes on, spliced into its bytes as the forwarding
 * path does ({@link ByteEdits}): header lines of the front's put first (its Via, its Record-Route,
 * a Request-Disposition), the Request-URI replaced, the top Via value taken off an answer. Every
 * other byte goes out as it came. Stateless.
 */
final class Splices {

    private Splices() {
    }

    /**
     * {@code request} with {@code headLines} (each ending in CRLF) first among its headers and,
     * unless {@code requestUri} is null, that Request-URI. {@code replaced}, a header name (full,
     * lower case) or null, loses its lines: the front's own line of that header stands instead.
     */
    static Message forwarded(Message request, String headLines, String requestUri, String replaced) {
        var edits = new ArrayList<ByteEdits.Edit>(3);
        if (requestUri != null) {
            edits.add(new ByteEdits.Edit(request.uriStart, request.uriEnd, requestUri));
        }
        int headers = request.lines.startLineEnd + 2;
        edits.add(new ByteEdits.Edit(headers, headers, headLines));
        for (int h = replaced == null ? -1 : request.header(replaced); h >= 0; h = request.lines.find(replaced, h + 1)) {
            edits.add(new ByteEdits.Edit(request.lines.lineStart[h], request.lines.lineEnd(h), ""));
        }
        return reread(ByteEdits.apply(request.bytes, edits));
    }

    /**
     * {@code answer} without its top Via value: the whole line if it holds one value, else the
     * value and its comma; null if what is left does not read (no Via below it).
     */
    static Message withoutTopVia(Message answer) {
        int v = answer.topVia;
        boolean alone = answer.viaEnd == answer.lines.valueEnd[v];
        int from = alone ? answer.lines.lineStart[v] : answer.lines.valueStart[v];
        int to = alone ? answer.lines.lineEnd(v) : answer.viaEnd + 1;
        return Message.read(new ByteEdits(answer.bytes, 0).replace(from, to, "").bytes());
    }

    /**
     * {@code request} without its top Route value (the front's own, consumed): the whole line if
     * it holds one value, else the value and its comma; null if there is no Route.
     */
    static Message withoutTopRoute(Message request) {
        int r = request.header("route");
        if (r < 0) {
            return null;
        }
        int comma = request.lines.firstComma(r);
        int from = comma < 0 ? request.lines.lineStart[r] : request.lines.valueStart[r];
        int to = comma < 0 ? request.lines.lineEnd(r) : comma + 1;
        return reread(new ByteEdits(request.bytes, 0).replace(from, to, "").bytes());
    }

    private static Message reread(byte[] bytes) {
        Message message = Message.read(bytes);
        if (message == null) {
            throw new IllegalStateException("the front spliced a message it cannot read: " + Message.text(bytes, 0,
                    bytes.length));
        }
        return message;
    }
}
