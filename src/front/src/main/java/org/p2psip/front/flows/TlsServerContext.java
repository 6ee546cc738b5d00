package org.p2psip.front.flows;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Collections;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;

/**
 * The TLS server side of the front's TLS listener, made once at start from its PKCS#12 key store:
 * the JDK's TLS engine, TLSv1.3 and TLSv1.2 (older versions are broken), and no client certificate
 * asked for: phones do not present one, and a client of a proxy authenticates the server, not the
 * other way round (RFC 3261 §26.3.1). Stateless.
 */
public final class TlsServerContext {

    static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    /**
     * Forward-secret AEAD suites only, as the nodes' TLS connectors offer (deploy/README.md, "TLS"):
     * Netty's defaults for the JDK would add CBC and static-RSA ones. RFC 3261's baseline
     * TLS_RSA_WITH_AES_128_CBC_SHA is among those left out. Suites this JDK lacks are dropped.
     */
    static final List<String> CIPHER_SUITES = List.of(
            "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256");

    private TlsServerContext() {
    }

    /**
     * The context from the key store at {@code path}; IllegalArgumentException with a message an
     * operator can act on if it cannot be read, the password is wrong, or it holds no private key.
     */
    public static SslContext load(String path, String password) {
        if (!Files.isRegularFile(Path.of(path)) || !Files.isReadable(Path.of(path))) {
            throw new IllegalArgumentException("TLS key store " + path + " is not a readable file");
        }
        char[] secret = password.toCharArray();
        try {
            KeyStore store = read(Path.of(path), secret);
            if (!holdsPrivateKey(store)) {
                throw new IllegalArgumentException("TLS key store " + path + " holds no private key with a certificate");
            }
            var keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, secret);
            return SslContextBuilder.forServer(keys).sslProvider(SslProvider.JDK).protocols(PROTOCOLS)
                    .ciphers(CIPHER_SUITES, SupportedCipherSuiteFilter.INSTANCE).clientAuth(ClientAuth.NONE).build();
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("TLS key store " + path + " cannot be read: " + reason(e), e);
        }
    }

    private static KeyStore read(Path path, char[] secret) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(path)) {
            store.load(in, secret);
        }
        return store;
    }

    private static boolean holdsPrivateKey(KeyStore store) throws GeneralSecurityException {
        for (String alias : Collections.list(store.aliases())) {
            if (store.isKeyEntry(alias) && store.getCertificateChain(alias) != null) {
                return true;
            }
        }
        return false;
    }

    /** What went wrong, as the JDK says it ("keystore password was incorrect", "DerInputStream..."). */
    private static String reason(Exception e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
