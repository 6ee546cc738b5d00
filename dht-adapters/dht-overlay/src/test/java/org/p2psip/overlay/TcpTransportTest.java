package org.p2psip.overlay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import io.netty.buffer.ByteBufUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.p2psip.config.HostPort;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;

/**
 * What TCP adds to the transport, on real loopback sockets: binding, a socket that accepts and
 * says nothing, outsiders and hostile input. The transport's own behaviour is the contract's
 * (dht-testkit's {@code TcpTransportContractTest}).
 */
class TcpTransportTest {

    private static final String SECRET = "tcp-test-secret";
    private final List<AutoCloseable> open = new ArrayList<>();
    private TcpTransport server;
    private TcpTransport client;

    @BeforeEach
    void start() {
        server = track(TcpTransport.bind("127.0.0.1:0", OverlaySettings.withSecret(SECRET)));
        server.serve((sender, type, payload) -> CompletableFuture.completedFuture(
                (sender + "/" + type + "/" + new String(payload, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8)));
        client = track(TcpTransport.bind("127.0.0.1:0", OverlaySettings.withSecret(SECRET)));
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private <T extends AutoCloseable> T track(T closeable) {
        open.add(closeable);
        return closeable;
    }

    private static <T> T await(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static DhtException failure(java.util.concurrent.CompletionStage<?> stage) {
        var thrown = assertThrows(ExecutionException.class, () -> stage.toCompletableFuture().get(10, TimeUnit.SECONDS));
        return assertInstanceOf(DhtException.class, thrown.getCause());
    }

    private void assertServes() throws Exception {
        byte[] answer = await(client.request(server.address(), 7, "ping".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5)));
        assertEquals(client.address() + "/7/ping", new String(answer, StandardCharsets.UTF_8));
    }

    @Test
    void bindingAnAddressInUseFailsAtOnce() {
        var refused = assertThrows(IllegalStateException.class,
                () -> TcpTransport.bind(server.address(), OverlaySettings.withSecret(SECRET)));
        assertTrue(refused.getMessage().contains(server.address()), refused.getMessage());
    }

    @Test
    void aSilentPeerFailsTheRequestWithTimeoutAtItsDeadline() throws Exception {
        try (var silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            DhtException e = failure(client.request("127.0.0.1:" + silent.getLocalPort(), 1, new byte[0], Duration.ofMillis(300)));
            assertEquals(Reason.TIMEOUT, e.reason());
        }
    }

    @Test
    void aPeerWithoutTheSecretIsRefused() throws Exception {
        var outsider = track(TcpTransport.bind("127.0.0.1:0", OverlaySettings.withSecret("wrong")));
        DhtException e = failure(outsider.request(server.address(), 1, new byte[0], Duration.ofSeconds(5)));
        assertEquals(Reason.UNREACHABLE, e.reason(), "the connection is closed under it");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (server.metrics().get(TcpTransport.HANDSHAKES_REFUSED) < 1) {
            assertTrue(System.nanoTime() < end, "the refusal is counted: " + server.metrics());
            Thread.sleep(10); // polling a counter, not waiting a fixed time
        }
        assertServes();
    }

    @Test
    void badInputClosesThatConnectionIsCountedAndTheNodeKeepsServing() throws Exception {
        byte[] good = ByteBufUtil.getBytes(Handshake.hello(ConnectionKeys.nonce(), "127.0.0.1:1"));

        byte[] oversized = {0x7f, 0, 0, 0};
        byte[] unknownVersion = good.clone();
        unknownVersion[4] = 9;
        byte[] garbage = "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        byte[] undersized = {0, 0, 0, 3, 1, 2, 3};

        int expected = 0;
        for (byte[] input : List.of(oversized, unknownVersion, garbage, undersized)) {
            assertClosedAfter(input, false);
            awaitBadFrames(++expected);
            assertServes();
        }
        byte[] truncated = java.util.Arrays.copyOf(good, good.length / 2);
        assertClosedAfter(truncated, true);
        awaitBadFrames(++expected);
        assertServes();
    }

    @Test
    void badBatchesFromAPeerThatCompletedTheHandshakeCloseItsConnectionAndAreCounted() throws Exception {
        byte[] oversized = {0x7f, 0, 0, 0};
        byte[] undersized = {0, 0, 0, 3, 1, 2, 3};
        int expected = 0;
        for (byte[] input : List.of(oversized, undersized)) {
            try (var insider = RawPeer.connect(server.address()).open(SECRET, "127.0.0.1:1")) {
                insider.expectProof();
                insider.send(input);
                insider.assertClosedByTheNode();
            }
            awaitBadFrames(++expected);
            assertServes();
        }
        assertEquals(2L, server.metrics().get(AbstractTransport.SERVED), "only the checks' own requests served");
    }

    /**
     * 500 strangers, each announcing a 4 MiB hello and sending up to 1 MiB of garbage, and one
     * that connects and says nothing: each is closed (the announced hellos at once, past the
     * hello bound; those beyond the bound on strangers at once; the silent one after the
     * patience), and a peer with the secret is served throughout.
     */
    @Test
    void strangersAnnouncingHugeFramesOrSayingNothingAreClosedAndPeersServed() throws Exception {
        var target = HostPort.parse(server.address()).socketAddress();
        try (var silent = new Socket(target.getAddress(), target.getPort())) {
            List<Socket> strangers = new ArrayList<>();
            try {
                byte[] chunk = new byte[64 * 1024];
                java.util.Arrays.fill(chunk, (byte) 0x5a);
                for (int i = 0; i < 500; i++) {
                    var socket = new Socket(target.getAddress(), target.getPort());
                    strangers.add(socket);
                    socket.setSoTimeout(15_000);
                    try {
                        OutputStream out = socket.getOutputStream();
                        out.write(new byte[] {0, 0x40, 0, 0}); // a 4 MiB hello
                        for (int sent = 0; sent < 1 << 20; sent += chunk.length) {
                            out.write(chunk);
                        }
                    } catch (SocketException closedMeanwhile) {
                        // the node closed it before the MiB was out: what it should do
                    }
                    if (i % 100 == 0) {
                        assertServes();
                    }
                }
                for (Socket socket : strangers) {
                    assertClosedByTheNode(socket);
                }
            } finally {
                for (Socket socket : strangers) {
                    socket.close();
                }
            }
            assertServes();
            silent.setSoTimeout((int) OverlayOptions.HANDSHAKE_PATIENCE.defaultValue().plusSeconds(10).toMillis());
            assertClosedByTheNode(silent);
        }
        assertTrue(server.metrics().get(AbstractTransport.BAD_FRAMES) > 0, "the announced hellos are counted");
        assertEquals(1, server.metrics().get(Strangers.TIMED_OUT), "the silent stranger timed out");
    }

    private static void assertClosedByTheNode(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        try {
            while (in.read() >= 0) {
                // drain: the node sends nothing to a stranger, but be lenient
            }
        } catch (SocketException reset) {
            // closed with a reset: as good as an orderly close
        }
    }

    /** Sends raw bytes (then half-closes if asked) and expects the server to close the connection. */
    private void assertClosedAfter(byte[] input, boolean thenEndStream) throws IOException {
        var target = HostPort.parse(server.address()).socketAddress();
        try (var socket = new Socket(target.getAddress(), target.getPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(input);
            out.flush();
            if (thenEndStream) {
                socket.shutdownOutput();
            }
            InputStream in = socket.getInputStream();
            try {
                assertEquals(-1, in.read(), "the node must close a connection that sent bad input");
            } catch (SocketException reset) {
                // closed with a reset: as good as an orderly close
            }
        }
    }

    private void awaitBadFrames(long count) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (server.metrics().get(AbstractTransport.BAD_FRAMES) < count) {
            assertTrue(System.nanoTime() < end, "expected " + count + " bad frames counted, got "
                    + server.metrics().get(AbstractTransport.BAD_FRAMES));
            Thread.sleep(10); // polling a counter, not waiting a fixed time
        }
        assertEquals(count, server.metrics().get(AbstractTransport.BAD_FRAMES));
    }
}
