package org.p2psip.overlay;

import io.netty.channel.ChannelHandler;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.SecureRandom;
import java.util.Collections;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManagerFactory;
import org.p2psip.config.Config;
import org.p2psip.config.NodeOptions;
import org.p2psip.config.Option;

/**
 * Mutual TLS for overlay connections, under the handshake and the batches' MACs: each side
 * presents the certificate of its key store and requires one from the peer that the trust store's
 * CA signed. Built once at start from the node's stores, so a missing or unreadable store stops
 * the node there rather than failing every connection later. No hostname verification: the CA is the deployment's own and
 * signs only its nodes, so any certificate it signed is a node of this overlay. Immutable.
 */
public final class OverlayTls {

    /** Connections whose TLS handshake failed: a peer without a certificate of the CA, or not speaking TLS. */
    public static final String HANDSHAKE_FAILURES = "overlay.tls-handshake-failures";
    /** Every node runs the same JDK, so there is no older peer to fall back for. */
    private static final String[] PROTOCOLS = {"TLSv1.3"};

    private final SSLContext context;

    private OverlayTls(SSLContext context) {
        this.context = context;
    }

    /**
     * Empty when {@link OverlayOptions#TLS} is off; otherwise the node's TLS, or
     * IllegalArgumentException naming the option whose store is missing or cannot be read.
     */
    public static Optional<OverlayTls> from(Config config) {
        if (!config.get(OverlayOptions.TLS)) {
            return Optional.empty();
        }
        char[] password = config.get(NodeOptions.TLS_STORE_PASSWORD).toCharArray();
        KeyStore keys = load(config, NodeOptions.TLS_KEY_STORE, password, true);
        KeyStore trusted = load(config, NodeOptions.TLS_TRUST_STORE, password, false);
        try {
            var keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keys, password);
            var trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), new SecureRandom());
            return Optional.of(new OverlayTls(context));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot use the key in " + NodeOptions.TLS_KEY_STORE.name() + " with "
                    + NodeOptions.TLS_STORE_PASSWORD.name() + " (" + OverlayOptions.TLS.name() + " is on): " + e, e);
        }
    }

    /**
     * The handlers that go first in a connection's pipeline: the client side of TLS on a
     * connection this node opened; on one it accepted, the server side, requiring the peer's
     * certificate, behind a check that the peer speaks TLS at all.
     */
    ChannelHandler[] handlers(boolean opened) {
        SSLEngine engine = context.createSSLEngine();
        engine.setUseClientMode(opened);
        engine.setEnabledProtocols(PROTOCOLS);
        if (opened) {
            return new ChannelHandler[] {new SslHandler(engine)};
        }
        engine.setNeedClientAuth(true);
        return new ChannelHandler[] {new TlsFirstByte(), new SslHandler(engine)};
    }

    /** The context the handlers' engines come from; tests open TLS sockets with it. */
    SSLContext context() {
        return context;
    }

    /** Reads the PKCS#12 file {@code option} names, which must hold a private key ({@code keys}) or a certificate. */
    private static KeyStore load(Config config, Option<String> option, char[] password, boolean keys) {
        String file = config.get(option);
        if (file.isBlank()) {
            throw new IllegalArgumentException(option.name() + " is empty, but " + OverlayOptions.TLS.name()
                    + " is on: it must name a PKCS#12 file (deploy/p2psip up --tls writes it)");
        }
        try (InputStream in = Files.newInputStream(Path.of(file))) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, password);
            if (!holds(store, keys)) {
                throw new IllegalArgumentException(option.name() + " " + file + " holds no "
                        + (keys ? "private key" : "trusted certificate"));
            }
            return store;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot read " + option.name() + " " + file + " as PKCS#12 with "
                    + NodeOptions.TLS_STORE_PASSWORD.name() + ": " + e, e);
        }
    }

    private static boolean holds(KeyStore store, boolean keys) throws KeyStoreException {
        for (String alias : Collections.list(store.aliases())) {
            if (keys ? store.isKeyEntry(alias) : store.isCertificateEntry(alias)) {
                return true;
            }
        }
        return false;
    }
}
