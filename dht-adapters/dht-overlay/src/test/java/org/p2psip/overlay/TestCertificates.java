package org.p2psip.overlay;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A certificate authority and node certificates it signs, made with the JDK's own keytool as a
 * deployment would make them: a CA key pair with basic constraints CA:true, and per node a key
 * pair, a certificate request, the CA's signature, then the CA and the signed chain imported into
 * the node's PKCS#12 key store. The trust store holds the CA's certificate alone.
 */
final class TestCertificates {

    static final String PASSWORD = "test-store-password";
    private static final String KEYTOOL = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();

    private final Path dir;
    private final String name;

    /** Makes the CA {@code name} in {@code dir}: {@code name-ca.p12}, its certificate and its trust store. */
    TestCertificates(Path dir, String name) {
        this.dir = dir;
        this.name = name;
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name + " CA",
                "-ext", "bc:c", "-validity", "30", "-keystore", file("ca.p12"), "-storetype", "PKCS12");
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", file("ca.p12"), "-file", file("ca.crt"));
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", file("ca.crt"),
                "-keystore", file("trust.p12"), "-storetype", "PKCS12");
    }

    /** The PKCS#12 file with the CA's certificate: what p2psip.tls.trust-store names. */
    Path trustStore() {
        return dir.resolve(name + "-trust.p12");
    }

    /** Makes a node's key store, its certificate signed by this CA: what p2psip.tls.key-store names. */
    Path node(String node) {
        String store = file(node + ".p12");
        keytool("-genkeypair", "-alias", "node", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + node,
                "-validity", "30", "-keystore", store, "-storetype", "PKCS12");
        keytool("-certreq", "-alias", "node", "-keystore", store, "-file", file(node + ".csr"));
        keytool("-gencert", "-rfc", "-alias", "ca", "-keystore", file("ca.p12"), "-validity", "30",
                "-infile", file(node + ".csr"), "-outfile", file(node + ".crt"));
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", file("ca.crt"), "-keystore", store);
        keytool("-importcert", "-alias", "node", "-file", file(node + ".crt"), "-keystore", store);
        return Path.of(store);
    }

    private String file(String suffix) {
        return dir.resolve(name + "-" + suffix).toString();
    }

    /** Runs keytool; it prompts for nothing, every answer is on its command line. */
    private static void keytool(String... args) {
        List<String> command = new ArrayList<>(List.of(KEYTOOL, "-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC"));
        command.addAll(List.of(args));
        command.addAll(List.of("-storepass", PASSWORD)); // PKCS#12: the key has the store's password
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("keytool " + String.join(" ", args) + " failed:\n" + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + KEYTOOL, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running keytool", e);
        }
    }
}
