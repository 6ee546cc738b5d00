package org.p2psip.front;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.config.Config;

class FrontMainTest {

    @TempDir
    static Path keyDir;
    private static TestKeyStore keys;

    @BeforeAll
    static void makeKeys() throws Exception {
        keys = TestKeyStore.in(keyDir);
    }

    @Test
    void flagsNameTheOptionsAndOverrideTheFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("front.properties");
        Files.writeString(file, "p2psip.front.policy=hash\np2psip.front.nodes=127.0.0.1:5070\n");
        Config config = FrontMain.parse(new String[] {"--config", file.toString(), "--policy", "cjsq",
            "--probe-interval=250ms", "--tlwl-invite-weight", "2"});
        assertEquals("cjsq", config.get(FrontOptions.POLICY));
        assertEquals("127.0.0.1:5070", config.get(FrontOptions.NODES));
        assertEquals(Duration.ofMillis(250), config.get(FrontOptions.PROBE_INTERVAL));
        assertEquals(2.0, config.get(FrontOptions.INVITE_WEIGHT));
        assertNull(FrontMain.parse(new String[] {"--help"}));
    }

    @Test
    void mistakesAreRefusedBeforeTheFrontBinds() {
        assertThrows(IllegalArgumentException.class, () -> FrontMain.parse(new String[] {"--policy", "rr"}),
                "nodes are required");
        assertThrows(IllegalArgumentException.class,
                () -> FrontMain.parse(new String[] {"--nodes", "127.0.0.1:5070", "--polcy", "rr"}));
        assertThrows(IllegalArgumentException.class,
                () -> FrontMain.parse(new String[] {"--nodes", "127.0.0.1:5070", "--policy", "fastest"}));
        assertThrows(IllegalArgumentException.class,
                () -> FrontMain.parse(new String[] {"--nodes", "127.0.0.1:5070", "--probe-interval", "soon"}));
    }

    @Test
    void aTlsPortWithoutAReadableKeyStoreIsRefusedBeforeTheFrontBinds(@TempDir Path dir) throws Exception {
        String nodes = "127.0.0.1:5070";
        assertRefused("needs --tls-key-store", "--nodes", nodes, "--tls-port", "5061");
        assertRefused("not a readable file", "--nodes", nodes, "--tls-port", "5061",
                "--tls-key-store", dir.resolve("missing.p12").toString());
        assertRefused("password was incorrect", "--nodes", nodes, "--tls-port", "5061",
                "--tls-key-store", keys.path.toString(), "--tls-store-password", "wrong");
        Path notAStore = Files.writeString(dir.resolve("front.txt"), "not PKCS#12");
        assertRefused("cannot be read", "--nodes", nodes, "--tls-port", "5061",
                "--tls-key-store", notAStore.toString(), "--tls-store-password", TestKeyStore.PASSWORD);
        assertRefused("port of its own", "--nodes", nodes, "--listen", "127.0.0.1:5061", "--tls-port", "5061",
                "--tls-key-store", keys.path.toString(), "--tls-store-password", TestKeyStore.PASSWORD);
        Config fine = FrontMain.parse(new String[] {"--nodes", nodes, "--tls-port", "5061",
            "--tls-key-store", keys.path.toString(), "--tls-store-password", TestKeyStore.PASSWORD});
        assertEquals(5061, fine.get(FrontOptions.TLS_PORT));
        assertEquals(0, FrontMain.parse(new String[] {"--nodes", nodes}).get(FrontOptions.TLS_PORT), "no TLS unless asked");
    }

    private static void assertRefused(String reason, String... args) {
        var e = assertThrows(IllegalArgumentException.class, () -> FrontMain.parse(args), String.join(" ", args));
        assertTrue(e.getMessage().contains(reason), "expected a message with '" + reason + "', got: " + e.getMessage());
    }

    @Test
    void theProcessWithAnUnreadableKeyStoreExitsWithStatus2AndSaysWhy(@TempDir Path dir) throws Exception {
        Process process = front("--listen", "127.0.0.1:0", "--nodes", "127.0.0.1:9", "--tls-port", "5061",
                "--tls-key-store", dir.resolve("missing.p12").toString());
        try {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(process.waitFor(10, TimeUnit.SECONDS), "the front did not stop");
            assertEquals(2, process.exitValue(), "exit status of a bad option: " + output);
            assertTrue(output.contains("missing.p12 is not a readable file"), output);
            assertFalse(output.contains("listening on"), output);
        } finally {
            process.destroyForcibly();
        }
    }

    /** With a TLS port the line deploy/ waits for keeps its beginning and names the TLS port at its end. */
    @Test
    void theProcessSaysItListensForTlsToo(@TempDir Path dir) throws Exception {
        int tlsPort = FreePort.onLoopback();
        // the password in a file, not a flag: what the README advises
        Path file = Files.writeString(dir.resolve("front.properties"),
                "p2psip.front.tls.store-password=" + TestKeyStore.PASSWORD + "\n");
        Process process = front("--config", file.toString(), "--listen", "127.0.0.1:0", "--nodes", "127.0.0.1:9",
                "--warmup-requests", "0", "--tls-port", Integer.toString(tlsPort), "--tls-key-store", keys.path.toString());
        try {
            String line = firstLineStarting(process, "p2psip-front listening on 127.0.0.1:");
            assertNotNull(line, "the front never said it was listening");
            assertTrue(line.matches("p2psip-front listening on 127\\.0\\.0\\.1:\\d+ \\(udp, tcp, tls " + tlsPort + "\\)"), line);
        } finally {
            process.destroyForcibly();
        }
    }

    /** The process deploy/ will run: it says where it listens, and SIGTERM ends it promptly. */
    @Test
    void theProcessStartsAndEndsOnSigterm() throws Exception {
        Process process = front("--listen", "127.0.0.1:0", "--nodes", "127.0.0.1:9", "--warmup-requests", "0");
        try {
            String line = firstLineStarting(process, "p2psip-front listening on 127.0.0.1:");
            assertEquals("(udp, tcp)", line == null ? null : line.substring(line.indexOf('(')),
                    "the front never said it was listening, or not as deploy/ reads it");
            process.destroy(); // SIGTERM
            assertTrue(process.waitFor(10, TimeUnit.SECONDS), "the front did not exit on SIGTERM");
            assertEquals(143, process.exitValue(), "exit status of a JVM ended by SIGTERM");
        } finally {
            process.destroyForcibly();
        }
    }

    /** The front as deploy/ runs it: its own JVM, standard error with standard output. */
    private static Process front(String... args) throws IOException {
        var command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), FrontMain.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** The first line of its output that starts so, or null if it ended first. */
    private static String firstLineStarting(Process process, String start) throws IOException {
        var out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith(start)) {
                return line;
            }
        }
        return null;
    }
}
