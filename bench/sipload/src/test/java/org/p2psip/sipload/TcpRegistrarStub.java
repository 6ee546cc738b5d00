package org.p2psip.sipload;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link RegistrarStub}'s answers over TCP or TLS (an SSLServerSocket given), a thread per connection (a test's few dozen): it
 * frames what it reads with the client's {@link StreamFramer}, answers REGISTERs on the
 * connection they came on, as an RFC 5626 registrar when the REGISTER supports outbound (Require:
 * outbound, Flow-Timer), answers a CRLFCRLF ping with a CRLF, and can call a registered user over
 * the connection it registered on, as a proxy would.
 */
final class TcpRegistrarStub implements AutoCloseable {
    static final int FLOW_TIMER = 1;
    final RegistrarStub registrar;
    final AtomicInteger accepted = new AtomicInteger();
    final List<String> users = new CopyOnWriteArrayList<>();        // the user of each REGISTER, in order
    final List<String> registers = new CopyOnWriteArrayList<>();    // each REGISTER's text, in order
    private final Map<String, Socket> byUser = new ConcurrentHashMap<>();
    private final Map<Socket, BlockingQueue<String>> responses = new ConcurrentHashMap<>();
    private final ServerSocket server;

    TcpRegistrarStub(RegistrarStub registrar) throws IOException {
        this(registrar, loopbackListener());
    }

    /** Answers on {@code server}, bound already (a TLS one: its sockets' streams are TLS's plaintext). */
    TcpRegistrarStub(RegistrarStub registrar, ServerSocket server) {
        this.registrar = registrar;
        this.server = server;
        var acceptor = new Thread(this::accept, "tcp-registrar-stub");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private static ServerSocket loopbackListener() throws IOException {
        var server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        return server;
    }

    String address() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                accepted.incrementAndGet();
                responses.put(socket, new LinkedBlockingQueue<>());
                var reader = new Thread(() -> serve(socket), "tcp-registrar-stub-connection");
                reader.setDaemon(true);
                reader.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket socket) {
        var keepalive = new Keepalive();
        byte[] buffer = new byte[4096];
        try (socket; InputStream in = socket.getInputStream()) {
            OutputStream out = socket.getOutputStream();
            var framer = new StreamFramer();
            StreamFramer.Sink sink = new StreamFramer.Sink() {
                @Override
                public void message(byte[] message) {
                    keepalive.message();
                    handle(socket, out, new String(message, StandardCharsets.UTF_8));
                }

                @Override
                public void crlf() {
                    if (keepalive.crlf() == Keepalive.Heard.PING) {
                        send(out, "\r\n");
                    }
                }
            };
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                framer.feed(buffer, 0, n, sink);
            }
        } catch (IOException e) {
            // the client closed, or the stub did, or (TLS) the handshake failed
        }
    }

    private void handle(Socket socket, OutputStream out, String message) {
        if (message.startsWith("SIP/2.0 ")) {
            responses.get(socket).add(message);
            return;
        }
        String to = message.substring(message.indexOf("\r\nTo: <sip:") + 11);
        String user = to.substring(0, to.indexOf('@'));
        users.add(user);
        registers.add(message);
        byUser.put(user, socket);
        String reply = registrar.answer(message);
        if (reply != null && reply.startsWith("SIP/2.0 200") && message.contains("\r\nSupported: outbound")) {
            reply = reply.replace("\r\nContent-Length: 0", "\r\nRequire: outbound\r\nFlow-Timer: " + FLOW_TIMER
                    + "\r\nContent-Length: 0");
        }
        if (reply != null) {
            send(out, reply);
        }
    }

    /** An INVITE for {@code user} as a proxy at 127.0.0.1 would send it over {@code transport} (TCP, TLS), with a Record-Route. */
    static String invite(String user, String transport) {
        String hop = "127.0.0.1:" + (transport.equals("TLS") ? 5061 : 5060);
        return "INVITE sip:" + user + "@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/" + transport + " " + hop
                + ";branch=z9hG4bKcall1\r\nRecord-Route: <sip:" + hop + ";transport=" + transport.toLowerCase(java.util.Locale.ROOT)
                + ";lr>\r\nFrom: <sip:bob@p2psip.test>;tag=b1\r\nTo: <sip:" + user + "@p2psip.test>\r\n"
                + "Call-ID: call-1\r\nCSeq: 1 INVITE\r\nContent-Length: 0\r\n\r\n";
    }

    /** Sends {@code request} to {@code user} over its connection; returns the first {@code count} responses. */
    List<String> call(String user, String request, int count) throws InterruptedException {
        Socket socket = byUser.get(user);
        synchronized (socket) {
            try {
                send(socket.getOutputStream(), request);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
        var got = new java.util.ArrayList<String>();
        while (got.size() < count) {
            String response = responses.get(socket).poll(5, TimeUnit.SECONDS);
            if (response == null) {
                break;
            }
            got.add(response);
        }
        return got;
    }

    private static void send(OutputStream out, String text) {
        synchronized (out) {
            try {
                out.write(text.getBytes(StandardCharsets.UTF_8));
                out.flush();
            } catch (IOException e) {
                // the client went: its test sees what it missed
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket socket : byUser.values()) {
            socket.close();
        }
    }
}
