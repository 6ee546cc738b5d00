package org.p2psip.sipload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;

/**
 * A test server's TLS key, made in the test's own folder by the JDK's keytool as an operator
 * would (never a key from elsewhere): an EC key with a self-signed certificate for one IP
 * address, in a PKCS#12 store; the certificate alone as PEM (what a phone trusts, like deploy's
 * ca.pem) and in a PKCS#12 trust store; and a TLS listener serving with the key.
 */
final class TestTlsKeys {
    static final String PASSWORD = "sipload-test-secret";
    final Path keyStore;
    final Path certificatePem;
    final Path trustStore;

    private TestTlsKeys(Path keyStore, Path certificatePem, Path trustStore) {
        this.keyStore = keyStore;
        this.certificatePem = certificatePem;
        this.trustStore = trustStore;
    }

    /** Keys named {@code name} in {@code folder}, their certificate for IP {@code address}. */
    static TestTlsKeys make(Path folder, String name, String address) throws IOException, InterruptedException {
        Path store = folder.resolve(name + ".p12");
        Path pem = folder.resolve(name + ".pem");
        Path trust = folder.resolve(name + "-trust.p12");
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
                "-ext", "san=ip:" + address, "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString());
        keytool("-exportcert", "-alias", name, "-rfc", "-keystore", store.toString(), "-file", pem.toString());
        keytool("-importcert", "-noprompt", "-alias", name, "-file", pem.toString(), "-storetype", "PKCS12",
                "-keystore", trust.toString());
        return new TestTlsKeys(store, pem, trust);
    }

    private static void keytool(String... arguments) throws IOException, InterruptedException {
        var command = new ArrayList<String>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC")); // a JVM per step: start it fast
        command.addAll(List.of(arguments));
        command.addAll(List.of("-storepass", PASSWORD));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), "keytool " + arguments[0] + ": " + output);
    }

    /** A TLS listener on the loopback address serving with this key, TLSv1.3 and TLSv1.2, no client certificate. */
    SSLServerSocket listener() throws IOException, GeneralSecurityException {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
            keys.load(in, PASSWORD.toCharArray());
        }
        var factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(keys, PASSWORD.toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(factory.getKeyManagers(), null, null);
        var server = (SSLServerSocket) context.getServerSocketFactory().createServerSocket();
        server.setEnabledProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        return server;
    }
}
