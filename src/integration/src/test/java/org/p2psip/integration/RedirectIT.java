package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a stateful front gets from a node, over raw UDP from sockets of the test's own, on one
 * node of the real container (memory backend): an INVITE with {@code Request-Disposition:
 * redirect} (RFC 3841 §9.1) answered 302 with the callee's contacts in the order the proxy
 * would ring them, the same INVITE without it proxied to the preferred contact, and the load
 * an OPTIONS probe's 200 reports. The exact bytes the node sends are what is judged.
 */
@Matrix
class RedirectIT extends DeployedNodes {

    private static final Pattern CONTACT = Pattern.compile("(?im)^(?:Contact|m)\\s*:\\s*(.*)$");
    private static final Pattern LOAD = Pattern.compile("(?im)^P2PSIP-Load\\s*:\\s*(.*)$");

    private final String user = "redirect-" + ProcessHandle.current().pid();
    private DatagramSocket caller;
    private DatagramSocket preferred;   // the q=1.0 contact
    private DatagramSocket second;      // the q=0.5 contact
    private DatagramSocket edge;        // the Path of the q=0.3 contact (never reached here)

    RedirectIT() {
        super("redirect", 29400, 1);
    }

    @BeforeAll
    void phones() throws IOException {
        caller = socket();
        preferred = socket();
        second = socket();
        edge = socket();
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app proxies to a fixed target");
        assertEquals(200, status(exchange(register("1", "<sip:" + user + "@127.0.0.1:" + port(preferred) + ">;q=1.0,"
                + " <sip:" + user + "@127.0.0.1:" + port(second) + ">;q=0.5", ""))), "the REGISTER of two contacts");
        assertEquals(200, status(exchange(register("2", "<sip:" + user + "@127.0.0.1:" + port(edge) + ";flow>;q=0.3",
                "Supported: path\r\nPath: <sip:edge@127.0.0.1:" + port(edge) + ";lr>\r\n"))), "the REGISTER through a Path");
    }

    @AfterAll
    void hangUp() {
        for (DatagramSocket socket : new DatagramSocket[] {caller, preferred, second, edge}) {
            if (socket != null) {
                socket.close();
            }
        }
    }

    @Test
    void anInviteAskingForARedirectGets302WithTheContactsInRingingOrder() throws IOException {
        String call = "r-" + System.nanoTime();
        String answer = exchange(invite(call, "Request-Disposition: Redirect, sequential\r\n"));
        ack(answer, call);
        assertEquals("SIP/2.0 302 Moved Temporarily", answer.substring(0, answer.indexOf("\r\n")), answer);
        List<String> contacts = contacts(answer);
        assertEquals(3, contacts.size(), "one Contact per live binding: " + answer);
        assertContact(contacts.get(0), "<sip:" + user + "@127.0.0.1:" + port(preferred) + ">", "1.0");
        assertContact(contacts.get(1), "<sip:" + user + "@127.0.0.1:" + port(second) + ">", "0.5");
        assertContact(contacts.get(2), "<sip:" + user + "@127.0.0.1:" + port(edge) + ";flow?Route=%3Csip:edge%40127.0.0.1:"
                + port(edge) + "%3Blr%3E>", "0.3");
        assertNoneOf(call, preferred, "a redirected INVITE must not be proxied");
    }

    @Test
    void theSameInviteWithoutTheDirectiveIsProxiedToThePreferredContact() throws IOException {
        String call = "p-" + System.nanoTime();
        send(caller, invite(call, "Request-Disposition: proxy\r\n"));
        String proxied = receive(preferred, 5_000);
        assertTrue(proxied.startsWith("INVITE sip:" + user + "@127.0.0.1:" + port(preferred)), "the q=1.0 contact got: " + proxied);
        assertTrue(proxied.contains(call), proxied);
        // answer it busy, so that the node moves on and ends the call rather than time out
        send(preferred, busy(proxied));
    }

    @Test
    void theHealthProbeIsAnsweredWithTheNodesLoad() throws IOException {
        String first = exchange(options());
        String second = exchange(options());
        for (String answer : List.of(first, second)) {
            assertTrue(answer.startsWith("SIP/2.0 200"), answer);
            Matcher load = LOAD.matcher(answer);
            assertTrue(load.find(), "no P2PSIP-Load in " + answer);
            assertTrue(load.group(1).strip().matches("cpu=\\d+\\.\\d\\d;cores=\\d+;queue=\\d+\\.\\d"), load.group(1));
        }
    }

    private static void assertContact(String contact, String nameAddr, String q) {
        assertTrue(contact.startsWith(nameAddr), "expected " + nameAddr + ", got " + contact);
        assertTrue(contact.contains(";q=" + q), "expected q=" + q + " in " + contact);
        Matcher expires = Pattern.compile(";expires=(\\d+)").matcher(contact);
        assertTrue(expires.find(), "no expires in " + contact);
        int seconds = Integer.parseInt(expires.group(1));
        assertTrue(seconds > 3000 && seconds <= 3600, "expires should be the seconds left of 3600: " + contact);
    }

    private static List<String> contacts(String message) {
        List<String> contacts = new ArrayList<>();
        Matcher m = CONTACT.matcher(message.substring(0, message.indexOf("\r\n\r\n")));
        while (m.find()) {
            for (String element : m.group(1).strip().split(",\\s*(?=<)")) {
                contacts.add(element.strip());
            }
        }
        return contacts;
    }

    private String register(String cseq, String contacts, String extra) {
        int port = port(caller);
        return "REGISTER sip:p2psip.test SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:" + port + ";branch=z9hG4bK-reg" + cseq + "-" + System.nanoTime() + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:" + user + "@p2psip.test>;tag=reg\r\n"
                + "To: <sip:" + user + "@p2psip.test>\r\n"
                + "Call-ID: reg-" + cseq + "-" + user + "\r\n"
                + "CSeq: " + cseq + " REGISTER\r\n"
                + extra
                + "Contact: " + contacts + "\r\n"
                + "Expires: 3600\r\n"
                + "Content-Length: 0\r\n\r\n";
    }

    private String invite(String call, String extra) {
        return "INVITE sip:" + user + "@p2psip.test SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:" + port(caller) + ";branch=z9hG4bK-" + call + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:caller@p2psip.test>;tag=" + call + "\r\n"
                + "To: <sip:" + user + "@p2psip.test>\r\n"
                + "Call-ID: " + call + "\r\n"
                + "CSeq: 1 INVITE\r\n"
                + "Contact: <sip:caller@127.0.0.1:" + port(caller) + ">\r\n"
                + extra
                + "Content-Length: 0\r\n\r\n";
    }

    /** The ACK of a non-2xx final answer (RFC 3261 §17.1.1.3): its To, the INVITE's branch. */
    private void ack(String answer, String call) throws IOException {
        Matcher to = Pattern.compile("(?im)^(?:To|t)\\s*:\\s*(.*)$").matcher(answer);
        if (!to.find()) {
            return;
        }
        send(caller, "ACK sip:" + user + "@p2psip.test SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:" + port(caller) + ";branch=z9hG4bK-" + call + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:caller@p2psip.test>;tag=" + call + "\r\n"
                + "To: " + to.group(1).strip() + "\r\n"
                + "Call-ID: " + call + "\r\n"
                + "CSeq: 1 ACK\r\n"
                + "Content-Length: 0\r\n\r\n");
    }

    /** 486 to a proxied INVITE: its Vias, From, To (with a tag), Call-ID and CSeq. */
    private static String busy(String invite) {
        var out = new StringBuilder("SIP/2.0 486 Busy Here\r\n");
        for (String line : invite.substring(0, invite.indexOf("\r\n\r\n")).split("\r\n")) {
            String name = line.contains(":") ? line.substring(0, line.indexOf(':')).strip().toLowerCase() : "";
            switch (name) {
                case "via", "v", "from", "f", "call-id", "i", "cseq" -> out.append(line).append("\r\n");
                case "to", "t" -> out.append(line).append(";tag=busy\r\n");
                default -> { }
            }
        }
        return out.append("Content-Length: 0\r\n\r\n").toString();
    }

    private String options() {
        String branch = "o-" + System.nanoTime();
        return "OPTIONS sip:" + deployment.node(0) + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:" + port(caller) + ";branch=z9hG4bK-" + branch + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:front@127.0.0.1>;tag=" + branch + "\r\n"
                + "To: <sip:" + deployment.node(0) + ">\r\n"
                + "Call-ID: " + branch + "\r\n"
                + "CSeq: 1 OPTIONS\r\n"
                + "Content-Length: 0\r\n\r\n";
    }

    /**
     * Sends from the caller's socket; the final answer to it, provisional ones and those of
     * another call (the proxied call's, which ends meanwhile) skipped.
     */
    private String exchange(String request) throws IOException {
        send(caller, request);
        Matcher callId = Pattern.compile("(?m)^Call-ID: ([^\r\n]*)").matcher(request);
        assertTrue(callId.find(), request);
        long end = System.currentTimeMillis() + 5_000;
        for (long left; (left = end - System.currentTimeMillis()) > 0; ) {
            String answer = receive(caller, (int) left);
            if (answer.startsWith("nothing")) {
                return answer;
            }
            if (!answer.startsWith("SIP/2.0 1") && answer.contains("Call-ID: " + callId.group(1) + "\r\n")) {
                return answer;
            }
        }
        return "nothing within 5 s";
    }

    private void send(DatagramSocket from, String message) throws IOException {
        String[] node = deployment.node(0).split(":");
        byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
        from.send(new DatagramPacket(bytes, bytes.length, new InetSocketAddress(node[0], Integer.parseInt(node[1]))));
    }

    private static String receive(DatagramSocket socket, int timeoutMillis) throws IOException {
        socket.setSoTimeout(timeoutMillis);
        var packet = new DatagramPacket(new byte[65_535], 65_535);
        try {
            socket.receive(packet);
        } catch (SocketTimeoutException silence) {
            return "nothing within " + timeoutMillis + " ms";
        }
        return new String(packet.getData(), 0, packet.getLength(), StandardCharsets.UTF_8);
    }

    /** Nothing of the call reaches the socket within a second (the other call's ACK may). */
    private static void assertNoneOf(String call, DatagramSocket socket, String why) throws IOException {
        long end = System.currentTimeMillis() + 1_000;
        for (long left; (left = end - System.currentTimeMillis()) > 0; ) {
            String got = receive(socket, (int) left);
            assertTrue(!got.contains(call), why + "; got " + got);
        }
    }

    private static int status(String answer) {
        return answer.startsWith("SIP/2.0 ") ? Integer.parseInt(answer.substring(8, 11)) : -1;
    }

    private static int port(DatagramSocket socket) {
        return socket.getLocalPort();
    }

    private static DatagramSocket socket() throws IOException {
        return new DatagramSocket(0, InetAddress.getLoopbackAddress());
    }
}
