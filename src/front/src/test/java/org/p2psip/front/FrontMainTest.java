package org.p2psip.front;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.config.Config;

class FrontMainTest {

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

    /** The process deploy/ will run: it says where it listens, and SIGTERM ends it promptly. */
    @Test
    void theProcessStartsAndEndsOnSigterm() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                FrontMain.class.getName(), "--listen", "127.0.0.1:0", "--nodes", "127.0.0.1:9")
                .redirectErrorStream(true).start();
        try {
            var out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String line;
            boolean listening = false;
            while (!listening && (line = out.readLine()) != null) {
                listening = line.startsWith("p2psip-front listening on 127.0.0.1:");
            }
            assertTrue(listening, "the front never said it was listening");
            process.destroy(); // SIGTERM
            assertTrue(process.waitFor(10, TimeUnit.SECONDS), "the front did not exit on SIGTERM");
            assertEquals(143, process.exitValue(), "exit status of a JVM ended by SIGTERM");
        } finally {
            process.destroyForcibly();
        }
    }
}
