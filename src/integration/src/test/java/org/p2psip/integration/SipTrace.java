package org.p2psip.integration;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The SIP messages a node's JAIN-SIP stack logged (deploy/p2psip up --sip-trace): one entry per
 * message sent or received, with the peer, the Call-ID and the first line. What the node's own
 * stack saw is independent of the front, so a test can check the front's routing against it.
 */
final class SipTrace {

    /** A message as the node's stack logged it: from where, sent or received, Call-ID, method (or SIP/2.0). */
    record Message(int node, String from, boolean sent, String callId, String method, long timeMillis) {
    }

    // JAIN-SIP's message log entry: <message from="..." to="..." time="..." isSender="..." transactionId="..."
    // callId="..." firstLine="..." >, its attributes on separate lines.
    private static final Pattern ENTRY = Pattern.compile("<message\\s+from=\"([^\"]*)\"\\s+to=\"[^\"]*\"\\s+"
            + "time=\"(\\d+)\"\\s+isSender=\"(true|false)\"\\s+transactionId=\"[^\"]*\"\\s+callId=\"([^\"]*)\"\\s+"
            + "firstLine=\"(\\S+)");

    private SipTrace() {
    }

    /** Every message node {@code node} logged in {@code log}, in the order logged. */
    static List<Message> read(int node, Path log) {
        String text;
        try {
            text = Files.readString(log, java.nio.charset.StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Message> messages = new ArrayList<>();
        Matcher m = ENTRY.matcher(text);
        while (m.find()) {
            messages.add(new Message(node, m.group(1), Boolean.parseBoolean(m.group(3)), m.group(4), m.group(5),
                    Long.parseLong(m.group(2))));
        }
        return messages;
    }
}
