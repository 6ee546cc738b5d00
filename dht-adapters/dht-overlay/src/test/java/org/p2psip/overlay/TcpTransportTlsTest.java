package org.p2psip.overlay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.config.Config;
import org.p2psip.config.HostPort;
import org.p2psip.config.NodeOptions;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;

/**
 * Mutual TLS on real loopback sockets, with a CA and node certificates keytool makes for the run:
 * nodes of the CA talk; a plain peer or one certified by another CA is refused and never served.
 */
class TcpTransportTlsTest {

    private static final String SECRET = "tls-test-secret";
    @TempDir
    static Path dir;
    private static TestCertificates deployment;
    private static Path nodeA;
    private static Path nodeB;
    private static Path rogue;

    private final List<AutoCloseable> open = new ArrayList<>();

    /** Two CAs, then three nodes' stores, side by side: each keytool run is mostly a JVM starting. */
    @BeforeAll
    static void certificates() {
        ExecutorService keytools = Executors.newFixedThreadPool(3);
        try {
            var ours = CompletableFuture.supplyAsync(() -> new TestCertificates(dir, "deployment"), keytools);
            var theirs = CompletableFuture.supplyAsync(() -> new TestCertificates(dir, "other"), keytools);
            var a = ours.thenApplyAsync(ca -> ca.node("node-a"), keytools);
            var b = ours.thenApplyAsync(ca -> ca.node("node-b"), keytools);
            var outsider = theirs.thenApplyAsync(ca -> ca.node("rogue"), keytools);
            deployment = ours.join();
            nodeA = a.join();
            nodeB = b.join();
            rogue = outsider.join();
        } finally {
            keytools.shutdown();
        }
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private static Config plain() {
        return Config.empty().with(NodeOptions.OVERLAY_SECRET.name(), SECRET);
    }

    private static Config tls(Path keyStore, Path trustStore) {
        return plain().with(OverlayOptions.TLS.name(), "true")
                .with(NodeOptions.TLS_KEY_STORE.name(), keyStore.toString())
                .with(NodeOptions.TLS_TRUST_STORE.name(), trustStore.toString())
                .with(NodeOptions.TLS_STORE_PASSWORD.name(), TestCertificates.PASSWORD);
    }

    /** A node that answers "its address/the payload". */
    private TcpTransport node(Config config) {
        var node = TcpTransport.bind("127.0.0.1:0", OverlaySettings.from(config));
        open.add(node);
        node.serve((sender, type, payload) -> CompletableFuture.completedFuture(
                (node.address() + "/" + new String(payload, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8)));
        return node;
    }

    private static String ask(TcpTransport from, TcpTransport to, String what) throws Exception {
        byte[] answer = from.request(to.address(), 1, what.getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        return new String(answer, StandardCharsets.UTF_8);
    }

    /** Asks and expects the request to fail as unreachable (its connection refused), not to time out. */
    private static void assertRefused(TcpTransport from, TcpTransport to) {
        var thrown = assertThrows(ExecutionException.class, () -> from.request(to.address(), 1, new byte[0],
                Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertEquals(Reason.UNREACHABLE, assertInstanceOf(DhtException.class, thrown.getCause()).reason(),
                thrown.getCause().getMessage());
        assertEquals(0L, to.metrics().get(AbstractTransport.SERVED), "nothing may be served to a refused peer");
    }

    private static void awaitAtLeast(TcpTransport node, String counter, long count) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (node.metrics().getOrDefault(counter, 0L) < count) {
            assertTrue(System.nanoTime() < end, "expected " + counter + " >= " + count + ", got " + node.metrics());
            Thread.sleep(10); // polling a counter, not waiting a fixed time
        }
    }

    @Test
    void twoNodesOfTheDeploymentsCaExchangeRequestsBothWays() throws Exception {
        var a = node(tls(nodeA, deployment.trustStore()));
        var b = node(tls(nodeB, deployment.trustStore()));
        assertEquals(b.address() + "/from-a", ask(a, b, "from-a"));
        assertEquals(a.address() + "/from-b", ask(b, a, "from-b"));
        for (int i = 0; i < 50; i++) {
            assertEquals(b.address() + "/n" + i, ask(a, b, "n" + i), "on the same TLS connection");
        }
        assertEquals(0L, a.metrics().getOrDefault(OverlayTls.HANDSHAKE_FAILURES, 0L));
        assertEquals(0L, b.metrics().getOrDefault(OverlayTls.HANDSHAKE_FAILURES, 0L));
    }

    @Test
    void aTlsNodeRefusesAPlainPeerAndIsRefusedByAPlainNode() throws Exception {
        var secure = node(tls(nodeA, deployment.trustStore()));
        var insecure = node(plain());
        assertRefused(insecure, secure);
        awaitAtLeast(secure, OverlayTls.HANDSHAKE_FAILURES, 1);
        assertRefused(secure, insecure);
    }

    @Test
    void aPeerCertifiedByAnotherCaIsRefusedEitherWay() throws Exception {
        var a = node(tls(nodeA, deployment.trustStore()));
        // trusts the deployment's CA, so only the other side's check can stop it
        var outsider = node(tls(rogue, deployment.trustStore()));
        assertRefused(outsider, a);
        awaitAtLeast(a, OverlayTls.HANDSHAKE_FAILURES, 1);
        assertRefused(a, outsider);
        awaitAtLeast(a, OverlayTls.HANDSHAKE_FAILURES, 2);
    }

    @Test
    void withTlsAStrangersHelloIsStillBoundedAndASilentOneTimedOut() throws Exception {
        var a = node(tls(nodeA, deployment.trustStore()));
        var target = HostPort.parse(a.address()).socketAddress();
        var peerTls = OverlayTls.from(tls(nodeB, deployment.trustStore())).orElseThrow();
        try (var silent = new Socket(target.getAddress(), target.getPort());
             var tlsSocket = (SSLSocket) peerTls.context().getSocketFactory().createSocket(target.getAddress(), target.getPort())) {
            tlsSocket.setSoTimeout(10_000);
            tlsSocket.startHandshake(); // a certificate of the CA: past TLS, a stranger all the same
            tlsSocket.getOutputStream().write(new byte[] {0, 0x40, 0, 0}); // announces a 4 MiB hello
            tlsSocket.getOutputStream().flush();
            assertClosedByTheNode(tlsSocket);
            awaitAtLeast(a, AbstractTransport.BAD_FRAMES, 1);
            silent.setSoTimeout((int) OverlayOptions.HANDSHAKE_PATIENCE.defaultValue().plusSeconds(10).toMillis());
            assertClosedByTheNode(silent);
        }
        assertEquals(1L, a.metrics().get(Strangers.TIMED_OUT), "the silent one, closed after the patience");
    }

    @Test
    void tlsOnWithAStoreMissingOrUnreadableFailsAtStartNamingTheOption() {
        Path missing = dir.resolve("missing.p12");
        assertStartFails(tls(nodeA, deployment.trustStore()).with(NodeOptions.TLS_KEY_STORE.name(), ""),
                NodeOptions.TLS_KEY_STORE.name());
        assertStartFails(tls(missing, deployment.trustStore()), NodeOptions.TLS_KEY_STORE.name());
        assertStartFails(tls(nodeA, missing), NodeOptions.TLS_TRUST_STORE.name());
        assertStartFails(tls(nodeA, deployment.trustStore()).with(NodeOptions.TLS_STORE_PASSWORD.name(), "wrong"),
                NodeOptions.TLS_STORE_PASSWORD.name());
        assertStartFails(tls(deployment.trustStore(), deployment.trustStore()), NodeOptions.TLS_KEY_STORE.name());
    }

    private static void assertStartFails(Config config, String naming) {
        var refused = assertThrows(IllegalArgumentException.class, () -> OverlaySettings.from(config));
        assertTrue(refused.getMessage().contains(naming), "expected the message to name " + naming + ": "
                + refused.getMessage());
    }

    private static void assertClosedByTheNode(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        try {
            assertEquals(-1, in.read(), "the node must close this connection without a word");
        } catch (SSLException | java.net.SocketException closed) {
            // closed with an alert or a reset: as good as an orderly close
        }
    }
}
