package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A SIP phone whose every message the test writes and reads itself: the caller or a callee of a
 * scripted call, so that a test can answer 486, stay silent, or drop an answer once, which SIPp's
 * scenarios cannot do per call. Over UDP on a port of its own, or ({@link #onTcp}) over one TCP
 * connection it opens to its proxy and listens nowhere else, as a phone behind NAT (RFC 5626):
 * everything it sends goes up that connection, and what reaches it comes down it. Driven by the
 * test's thread alone (a TCP phone's connection is read by a thread of its own into a queue).
 */
final class ScriptedPhone implements AutoCloseable {

    /** One SIP message received: its first line and headers as written, in order. */
    record Message(String firstLine, List<String[]> headers, InetSocketAddress source) {

        boolean isRequest(String method) {
            return firstLine.startsWith(method + " ");
        }

        boolean isResponse(int status, String method) {
            return firstLine.startsWith("SIP/2.0 " + status + " ") && cseqMethod().equals(method);
        }

        int status() {
            return firstLine.startsWith("SIP/2.0 ") ? Integer.parseInt(firstLine.substring(8, 11)) : 0;
        }

        String cseqMethod() {
            String cseq = header("CSeq");
            return cseq == null ? "" : cseq.substring(cseq.indexOf(' ') + 1).strip();
        }

        /** The first value of a header (a line may hold several, comma-separated: only for Via and Route-like headers is that split). */
        String header(String name) {
            List<String> values = headers(name);
            return values.isEmpty() ? null : values.get(0);
        }

        /** Every line of a header, in order (its compact form too). */
        List<String> headers(String name) {
            var values = new ArrayList<String>();
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name) || h[0].equalsIgnoreCase(compact(name))) {
                    values.add(h[1]);
                }
            }
            return values;
        }

        /** The values of a header that may list several per line (Via, Record-Route), in order. */
        List<String> listed(String name) {
            var values = new ArrayList<String>();
            for (String line : headers(name)) {
                for (String value : SipResponse.elements(line)) {
                    values.add(value.strip());
                }
            }
            return values;
        }

        String toTag() {
            String to = header("To");
            int at = to.toLowerCase(Locale.ROOT).indexOf(";tag=");
            return at < 0 ? null : to.substring(at + 5).split(";")[0].strip();
        }

        @Override
        public String toString() {
            var text = new StringBuilder(firstLine);
            headers.forEach(h -> text.append(" | ").append(h[0]).append(": ").append(h[1]));
            return text.toString();
        }
    }

    private static final AtomicLong SEQUENCE = new AtomicLong();

    /** The UDP socket; null for a phone on a TCP connection. */
    private final DatagramSocket socket;
    /** The TCP connection to the proxy; null for a phone over UDP. */
    private final Socket connection;
    /** Messages read from the TCP connection, framed by their Content-Length. */
    private final BlockingQueue<Message> arrived = new LinkedBlockingQueue<>();
    private final String user;
    private final List<Message> unread = new ArrayList<>();

    ScriptedPhone(String user, int port) {
        this.user = user;
        this.connection = null;
        try {
            this.socket = new DatagramSocket(new InetSocketAddress("127.0.0.1", port));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind the test phone " + user + " to port " + port, e);
        }
    }

    private ScriptedPhone(String user, Socket connection) {
        this.user = user;
        this.socket = null;
        this.connection = connection;
        var reader = new Thread(this::readConnection, "phone-" + user);
        reader.setDaemon(true);
        reader.start();
    }

    /** A phone on a TCP connection it opens to {@code proxy} (from an ephemeral port). */
    static ScriptedPhone onTcp(String user, InetSocketAddress proxy) {
        try {
            return new ScriptedPhone(user, new Socket(proxy.getAddress(), proxy.getPort()));
        } catch (IOException e) {
            throw new UncheckedIOException("the test phone " + user + " cannot connect to " + proxy, e);
        }
    }

    private int localPort() {
        return socket != null ? socket.getLocalPort() : connection.getLocalPort();
    }

    private String transport() {
        return socket != null ? "UDP" : "TCP";
    }

    String user() {
        return user;
    }

    /** This phone's contact URI. */
    String contact() {
        return "sip:" + user + "@127.0.0.1:" + localPort() + (socket != null ? "" : ";transport=tcp");
    }

    String via(String branch) {
        return "SIP/2.0/" + transport() + " 127.0.0.1:" + localPort() + ";branch=" + branch + ";rport";
    }

    static String newBranch() {
        return "z9hG4bK-phone-" + System.nanoTime() + "-" + SEQUENCE.incrementAndGet();
    }

    static String newId(String what) {
        return what + "-" + System.nanoTime() + "-" + SEQUENCE.incrementAndGet();
    }

    /**
     * Sends {@code lines} (a message's start line and headers, without the blank line) with an
     * empty body; a phone on a TCP connection sends everything up it, whatever {@code to} says.
     */
    void send(InetSocketAddress to, String... lines) {
        var text = new StringBuilder();
        for (String line : lines) {
            text.append(line).append("\r\n");
        }
        text.append("Content-Length: 0\r\n\r\n");
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        try {
            if (socket != null) {
                socket.send(new DatagramPacket(bytes, bytes.length, to));
            } else {
                connection.getOutputStream().write(bytes);
                connection.getOutputStream().flush();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** REGISTERs this phone's contact for its user in {@code domain} through {@code registrar}, with {@code q}; the final answer. */
    Message register(InetSocketAddress registrar, String domain, String q, Duration within) {
        String branch = newBranch();
        String callId = newId("reg-" + user + "-" + q);
        send(registrar,
                "REGISTER sip:" + domain + " SIP/2.0",
                "Via: " + via(branch),
                "Max-Forwards: 70",
                "From: <sip:" + user + "@" + domain + ">;tag=" + callId,
                "To: <sip:" + user + "@" + domain + ">",
                "Call-ID: " + callId,
                "CSeq: 1 REGISTER",
                "Contact: <" + contact() + ">;q=" + q,
                "Expires: 3600");
        return await("the final answer to its REGISTER", within, m -> callId.equals(m.header("Call-ID")) && m.status() >= 200);
    }

    /** Answers {@code request} with {@code status}: its Vias, From, Call-ID, CSeq and Record-Route, To with {@code toTag}. */
    void answer(Message request, int status, String reason, String toTag) {
        var lines = new ArrayList<String>();
        lines.add("SIP/2.0 " + status + " " + reason);
        request.headers("Via").forEach(v -> lines.add("Via: " + v));
        lines.add("From: " + request.header("From"));
        String to = request.header("To");
        lines.add("To: " + (toTag == null || to.contains(";tag=") ? to : to + ";tag=" + toTag));
        lines.add("Call-ID: " + request.header("Call-ID"));
        lines.add("CSeq: " + request.header("CSeq"));
        if (status > 100 && status < 300) {
            request.headers("Record-Route").forEach(r -> lines.add("Record-Route: " + r));
            lines.add("Contact: <" + contact() + ">");
        }
        send(answerAddress(request), lines.toArray(String[]::new));
    }

    /** Where an answer to {@code request} goes: its top Via's received/rport, else its sent-by (RFC 3261 §18.2.2, RFC 3581). */
    static InetSocketAddress answerAddress(Message request) {
        String via = SipResponse.elements(request.header("Via")).get(0).strip();
        String sentBy = via.substring(via.indexOf(' ') + 1).split(";")[0].strip();
        String host = sentBy.contains(":") ? sentBy.substring(0, sentBy.lastIndexOf(':')) : sentBy;
        int port = sentBy.contains(":") ? Integer.parseInt(sentBy.substring(sentBy.lastIndexOf(':') + 1)) : 5060;
        for (String param : via.split(";")) {
            String p = param.strip();
            if (p.startsWith("received=")) {
                host = p.substring(9);
            } else if (p.startsWith("rport=")) {
                port = Integer.parseInt(p.substring(6));
            }
        }
        return new InetSocketAddress(host, port);
    }

    /**
     * The first message received (or already read and not taken) that {@code wanted} accepts,
     * waiting at most {@code within}; fails the test with what did arrive if none does. Other
     * messages are kept for later calls.
     */
    Message await(String what, Duration within, Predicate<Message> wanted) {
        Message message = poll(within, wanted);
        if (message == null) {
            fail(user + " did not receive " + what + " within " + within + "; it received: " + unread);
        }
        return message;
    }

    /** As {@link #await}, null if nothing wanted came within {@code within}. */
    Message poll(Duration within, Predicate<Message> wanted) {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            for (Iterator<Message> it = unread.iterator(); it.hasNext(); ) {
                Message m = it.next();
                if (wanted.test(m)) {
                    it.remove();
                    return m;
                }
            }
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                return null;
            }
            Message received = receive((int) Math.max(1, left));
            if (received != null) {
                unread.add(received);
            }
        }
    }

    /** Forgets every message received and not yet taken. */
    void clear() {
        while (receive(1) != null) {
            // drained
        }
        unread.clear();
    }

    private Message receive(int timeoutMillis) {
        if (socket == null) {
            try {
                return arrived.poll(timeoutMillis, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        byte[] buffer = new byte[65_535];
        var packet = new DatagramPacket(buffer, buffer.length);
        try {
            socket.setSoTimeout(timeoutMillis);
            socket.receive(packet);
        } catch (SocketTimeoutException e) {
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return parse(new String(buffer, 0, packet.getLength(), StandardCharsets.UTF_8),
                (InetSocketAddress) packet.getSocketAddress());
    }

    /** The TCP connection's reader: each message cut at its head's end and its Content-Length (RFC 3261 §18.3). */
    private void readConnection() {
        var source = (InetSocketAddress) connection.getRemoteSocketAddress();
        try (var in = new java.io.BufferedInputStream(connection.getInputStream())) {
            while (true) {
                var head = new java.io.ByteArrayOutputStream();
                int matched = 0;
                while (matched < 4) {
                    int b = in.read();
                    if (b < 0) {
                        return;
                    }
                    if (head.size() == 0 && (b == '\r' || b == '\n')) {
                        continue; // a keep-alive's CRLF between messages
                    }
                    head.write(b);
                    matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : b == '\r' ? 1 : 0;
                }
                Message message = parse(head.toString(StandardCharsets.UTF_8), source);
                String length = message.header("Content-Length");
                in.readNBytes(length == null ? 0 : Integer.parseInt(length.strip()));
                arrived.add(message);
            }
        } catch (IOException e) {
            // the connection closed: nothing more arrives
        }
    }

    private static Message parse(String text, InetSocketAddress source) {
        String head = text.split("\r\n\r\n", 2)[0];
        String[] lines = head.split("\r\n");
        var headers = new ArrayList<String[]>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.add(new String[] {lines[i].substring(0, colon).strip(), lines[i].substring(colon + 1).strip()});
            }
        }
        return new Message(lines[0], headers, source);
    }


    private static String compact(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "via" -> "v";
            case "from" -> "f";
            case "to" -> "t";
            case "call-id" -> "i";
            case "contact" -> "m";
            case "content-length" -> "l";
            default -> name;
        };
    }

    @Override
    public void close() {
        try {
            if (socket != null) {
                socket.close();
            } else {
                connection.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
