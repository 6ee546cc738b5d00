package org.p2psip.front;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A PKCS#12 key store for the front's TLS listener, made by the JDK's keytool as an operator would:
 * an EC key and a self-signed certificate for IP 127.0.0.1; and a client TLS context that trusts
 * exactly that certificate, as a phone given the deployment's CA would.
 */
final class TestKeyStore {

    static final String PASSWORD = "front-test-secret";

    final Path path;

    private TestKeyStore(Path path) {
        this.path = path;
    }

    /** Writes {@code front.p12} in {@code dir}. */
    static TestKeyStore in(Path dir) throws IOException, InterruptedException {
        Path path = dir.resolve("front.p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process process = new ProcessBuilder(keytool, "-genkeypair", "-alias", "front", "-keyalg", "EC",
                "-groupname", "secp256r1", "-dname", "CN=p2psip-front", "-ext", "san=ip:127.0.0.1", "-validity", "2",
                "-storetype", "PKCS12", "-keystore", path.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD)
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8); // until it ends
        assertEquals(0, process.waitFor(), "keytool failed: " + output);
        return new TestKeyStore(path);
    }

    /** A client's TLS context that trusts the front's certificate and nothing else. */
    SSLContext clientContext() throws IOException, GeneralSecurityException {
        KeyStore own = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(path)) {
            own.load(in, PASSWORD.toCharArray());
        }
        Certificate certificate = own.getCertificate("front");
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        trusted.setCertificateEntry("front", certificate);
        var trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }
}
