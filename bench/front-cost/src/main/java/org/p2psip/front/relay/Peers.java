package org.p2psip.front.relay;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The caller, the node and the callee of {@link CallCost}'s calls: each answers what the front sent
 * it with text written from that message's lines (Via, From, To, Call-ID, CSeq copied, a 2xx to an
 * INVITE with the request's Record-Route), as a UA would. Their work is part of what the benchmark
 * measures, a few microseconds a message: the front's cost is at most the figure.
 */
final class Peers {

    static final InetSocketAddress CALLER = new InetSocketAddress("127.0.0.1", 40001);
    static final InetSocketAddress CALLEE = new InetSocketAddress("127.0.0.1", 40010);
    private static final String CALLEE_CONTACT = "<sip:bob@127.0.0.1:40010>";

    private final CallCost.Recorder outlet;
    private final BiConsumer<byte[], InetSocketAddress> front;

    Peers(CallCost.Recorder outlet, BiConsumer<byte[], InetSocketAddress> front) {
        this.outlet = outlet;
        this.front = front;
    }

    /** One call, kept at the front or forwarded to the node. */
    void call(boolean kept, long n) {
        outlet.clear();
        String callId = "cost-" + n + "@127.0.0.1";
        send(request("INVITE", "sip:bob@example.com", callId, "i" + n, 1, null, List.of()), CALLER);
        byte[] invite;
        InetSocketAddress callee;
        if (kept) {
            byte[] lookup = last(outlet.toNode);
            send(answer(lookup, 302, "Moved Temporarily", "node", "Contact: " + CALLEE_CONTACT + "\r\n"), CallCost.NODE);
            invite = lastTo(CALLEE);
            callee = CALLEE;
        } else {
            invite = last(outlet.toNode);
            callee = CallCost.NODE;
        }
        send(answer(invite, 180, "Ringing", "b" + n, ""), callee);
        send(answer(invite, 200, "OK", "b" + n, "Contact: " + CALLEE_CONTACT + "\r\n"
                + (kept ? "" : "Record-Route: <sip:127.0.0.1:5070;lr>\r\n")), callee);
        List<String> route = routeOf(lastTo(CALLER));
        send(request("ACK", "sip:bob@127.0.0.1:40010", callId, "a" + n, 1, "b" + n, route), CALLER);
        send(request("BYE", "sip:bob@127.0.0.1:40010", callId, "y" + n, 2, "b" + n, route), CALLER);
        byte[] bye = kept ? lastTo(CALLEE) : last(outlet.toNode);
        send(answer(bye, 200, "OK", null, ""), callee);
    }

    /** One call, and an exception unless the caller got the 180 and both 200s and the callee the INVITE, ACK and BYE. */
    void check(boolean kept, long n) {
        call(kept, n);
        List<String> atCaller = firstLines(outlet.toClient, outlet.clientAddresses, CALLER);
        List<String> atCallee = kept ? firstLines(outlet.toClient, outlet.clientAddresses, CALLEE)
                : outlet.toNode.stream().map(Peers::firstLine).toList();
        boolean through = atCaller.containsAll(List.of("SIP/2.0 180 Ringing", "SIP/2.0 200 OK"))
                && atCaller.stream().filter("SIP/2.0 200 OK"::equals).count() == 2
                && atCallee.stream().anyMatch(line -> line.startsWith("INVITE sip:bob@"))
                && atCallee.stream().anyMatch(line -> line.startsWith("ACK "))
                && atCallee.stream().anyMatch(line -> line.startsWith("BYE "));
        if (!through) {
            throw new IllegalStateException("the " + (kept ? "kept" : "forwarded") + " call did not go through: caller got "
                    + atCaller + ", callee got " + atCallee);
        }
    }

    private void send(String text, InetSocketAddress from) {
        front.accept(text.getBytes(StandardCharsets.UTF_8), from);
    }

    private static String request(String method, String uri, String callId, String branch, int cseq, String toTag,
            List<String> route) {
        var text = new StringBuilder(256).append(method).append(' ').append(uri).append(" SIP/2.0\r\n")
                .append("Via: SIP/2.0/UDP 127.0.0.1:40001;branch=z9hG4bK-").append(branch).append(";rport\r\n")
                .append("Max-Forwards: 70\r\n")
                .append("From: <sip:alice@example.com>;tag=a\r\n")
                .append("To: <sip:bob@example.com>").append(toTag == null ? "" : ";tag=" + toTag).append("\r\n")
                .append("Call-ID: ").append(callId).append("\r\n")
                .append("CSeq: ").append(cseq).append(' ').append(method).append("\r\n");
        for (String hop : route) {
            text.append("Route: ").append(hop).append("\r\n");
        }
        if (method.equals("INVITE")) {
            text.append("Contact: <sip:alice@127.0.0.1:40001>\r\n");
        }
        return text.append("Content-Length: 0\r\n\r\n").toString();
    }

    /** A response to {@code request}'s bytes, as its UAS writes it (RFC 3261 §8.2.6, §12.1.1). */
    private static String answer(byte[] request, int status, String reason, String toTag, String extra) {
        String[] lines = head(request);
        boolean invite2xx = status / 100 == 2 && lines[0].startsWith("INVITE ");
        var text = new StringBuilder(512).append("SIP/2.0 ").append(status).append(' ').append(reason).append("\r\n");
        for (String line : lines) {
            String name = name(line);
            if (name.equals("via") || name.equals("v") || name.equals("from") || name.equals("f")
                    || name.equals("call-id") || name.equals("i") || name.equals("cseq")
                    || (invite2xx && name.equals("record-route"))) {
                text.append(line).append("\r\n");
            } else if (name.equals("to") || name.equals("t")) {
                text.append(line).append(toTag == null || line.contains(";tag=") ? "" : ";tag=" + toTag).append("\r\n");
            }
        }
        return text.append(extra).append("Content-Length: 0\r\n\r\n").toString();
    }

    /** The Route a caller's in-dialog requests carry: the 2xx's Record-Route, reversed (RFC 3261 §12.1.2). */
    private static List<String> routeOf(byte[] ok) {
        var route = new ArrayList<String>();
        for (String line : head(ok)) {
            if (name(line).equals("record-route")) {
                for (String hop : line.substring(line.indexOf(':') + 1).split(",")) {
                    route.add(0, hop.strip());
                }
            }
        }
        return route;
    }

    private byte[] lastTo(InetSocketAddress address) {
        for (int i = outlet.toClient.size() - 1; i >= 0; i--) {
            if (outlet.clientAddresses.get(i).equals(address)) {
                return outlet.toClient.get(i);
            }
        }
        throw new IllegalStateException("the front sent nothing to " + address);
    }

    private static byte[] last(List<byte[]> messages) {
        if (messages.isEmpty()) {
            throw new IllegalStateException("the front sent nothing to the node");
        }
        return messages.get(messages.size() - 1);
    }

    private static List<String> firstLines(List<byte[]> messages, List<InetSocketAddress> to, InetSocketAddress who) {
        var lines = new ArrayList<String>();
        for (int i = 0; i < messages.size(); i++) {
            if (to.get(i).equals(who)) {
                lines.add(firstLine(messages.get(i)));
            }
        }
        return lines;
    }

    private static String firstLine(byte[] message) {
        return head(message)[0];
    }

    private static String[] head(byte[] message) {
        String text = new String(message, StandardCharsets.UTF_8);
        int end = text.indexOf("\r\n\r\n");
        return (end < 0 ? text : text.substring(0, end)).split("\r\n");
    }

    private static String name(String line) {
        int colon = line.indexOf(':');
        return colon < 0 ? "" : line.substring(0, colon).strip().toLowerCase(java.util.Locale.ROOT);
    }
}
