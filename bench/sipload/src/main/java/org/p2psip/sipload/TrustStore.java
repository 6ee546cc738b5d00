package org.p2psip.sipload;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collections;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * --trust-store: the certificates a server's chain must lead to. A PEM file of one or more
 * certificates (the CA's ca.pem that {@code deploy/p2psip up --tls} writes), or a PKCS#12 store
 * (its trust.p12, with --trust-store-password: keytool encrypts even certificates).
 */
final class TrustStore {
    private static final String PEM_MARK = "-----BEGIN CERTIFICATE-----";

    private TrustStore() {
    }

    /** The trust managers of {@code file}; IllegalArgumentException saying what is wrong with it. */
    static TrustManager[] read(Path file, String password) {
        try {
            byte[] bytes = Files.readAllBytes(file);
            KeyStore store = new String(bytes, StandardCharsets.ISO_8859_1).contains(PEM_MARK)
                    ? fromPem(bytes) : fromPkcs12(bytes, password);
            if (!holdsCertificate(store)) {
                throw new IllegalArgumentException("--trust-store " + file + " holds no certificate"
                        + (password == null ? " (a PKCS#12 store may need --trust-store-password)" : ""));
            }
            var factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(store);
            return factory.getTrustManagers();
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("--trust-store " + file + " cannot be read: " + e.getMessage(), e);
        }
    }

    private static KeyStore fromPem(byte[] bytes) throws IOException, GeneralSecurityException {
        KeyStore store = empty();
        int i = 0;
        for (Certificate certificate : CertificateFactory.getInstance("X.509")
                .generateCertificates(new ByteArrayInputStream(bytes))) {
            store.setCertificateEntry("trusted-" + i++, certificate);
        }
        return store;
    }

    private static KeyStore fromPkcs12(byte[] bytes, String password) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(new ByteArrayInputStream(bytes), password == null ? null : password.toCharArray());
        return store;
    }

    private static KeyStore empty() throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        return store;
    }

    private static boolean holdsCertificate(KeyStore store) throws GeneralSecurityException {
        for (String alias : Collections.list(store.aliases())) {
            if (store.isCertificateEntry(alias)) {
                return true;
            }
        }
        return false;
    }
}
