package org.p2psip.sipload;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;

/**
 * The phones' side of SIP over TLS (RFC 3261 §26.2.1): one JDK TLS context for every phone, TLSv1.3
 * and TLSv1.2 only (older versions are broken), no client certificate (a phone authenticates
 * the proxy, and itself with Digest). The server's certificate must chain to --trust-store and name
 * the target's IP address (endpoint identification "HTTPS", RFC 2818 §3.1: an IP literal matches
 * an iPAddress subjectAltName), unless --tls-insecure. Also the buffers the load's thread shares
 * between every connection's wraps and unwraps, so that an idle connection holds none.
 */
final class TlsClient {
    static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");
    private final SSLContext context;
    private final String host;
    private final boolean verify;
    private final String[] protocols;
    private final Map<Phone, Integer> sessionKeys = new IdentityHashMap<>();
    ByteBuffer netIn;   // records read from a socket, then unwrapped
    ByteBuffer netOut;  // records wrapped, then written
    ByteBuffer appIn;   // plaintext unwrapped, then framed

    /**
     * {@code trustStore} null: --tls-insecure. IllegalArgumentException when the trust store
     * cannot be read, IllegalStateException when this JDK has no TLS.
     */
    TlsClient(InetSocketAddress target, Path trustStore, String password) {
        this.verify = trustStore != null;
        TrustManager[] trust = verify ? TrustStore.read(trustStore, password) : new TrustManager[] {new UncheckedTrust()};
        try {
            context = SSLContext.getInstance("TLS");
            context.init(null, trust, null);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("no TLS in this JDK: " + e.getMessage(), e);
        }
        this.host = target.getAddress().getHostAddress();
        List<String> supported = Arrays.asList(context.getSupportedSSLParameters().getProtocols());
        this.protocols = PROTOCOLS.stream().filter(supported::contains).toArray(String[]::new);
        SSLEngine probe = context.createSSLEngine();
        netIn = ByteBuffer.allocate(Math.max(64 * 1024, probe.getSession().getPacketBufferSize()));
        netOut = ByteBuffer.allocate(probe.getSession().getPacketBufferSize());
        appIn = ByteBuffer.allocate(probe.getSession().getApplicationBufferSize());
    }

    /**
     * A new client engine for {@code phone}. The session cache is keyed by peer host and port:
     * a port of the phone's own (the server's is not otherwise used) lets a phone resume its own
     * session on its next connection, as a phone would, but never another phone's, which would
     * turn thousands of phones' first handshakes into cheap resumptions.
     */
    SSLEngine engine(Phone phone) {
        int key = sessionKeys.computeIfAbsent(phone, p -> sessionKeys.size() + 1);
        SSLEngine engine = context.createSSLEngine(host, key);
        engine.setUseClientMode(true);
        SSLParameters parameters = engine.getSSLParameters();
        parameters.setProtocols(protocols);
        if (verify) {
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
        }
        engine.setSSLParameters(parameters);
        return engine;
    }

    /** A larger buffer than {@code buffer} after an engine said it overflowed (a bigger record than announced). */
    static ByteBuffer grown(ByteBuffer buffer) {
        return ByteBuffer.allocate(buffer.capacity() * 2);
    }
}
