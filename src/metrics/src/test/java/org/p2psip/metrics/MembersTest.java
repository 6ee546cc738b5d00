package org.p2psip.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MembersTest {

    private final List<HttpServer> servers = new ArrayList<>();

    @AfterEach
    void stop() {
        servers.forEach(s -> s.stop(0));
    }

    /** A status address on loopback whose /self.json says {@code self}. */
    private String member(SelfReport self) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        byte[] body = self.json("").getBytes(StandardCharsets.UTF_8);
        server.createContext("/self.json", exchange -> {
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        servers.add(server);
        return "127.0.0.1:" + server.getAddress().getPort();
    }

    @Test
    void countsTheNodesUpThoseStartingAndThoseServingButNeverTheFront() throws Exception {
        var members = new Members(List.of(
                member(new SelfReport("node", "127.0.0.1:5070", "chord", true, 0.5, 10L)),
                member(new SelfReport("node", "127.0.0.1:5071", "chord", false, 0.5, 0L)),
                member(new SelfReport("front", "127.0.0.1:5060", "", true, Double.NaN, null)),
                "127.0.0.1:1"), Duration.ofSeconds(5), System::currentTimeMillis);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (members.nodesUp() < 2 && System.nanoTime() < deadline) {
            members.poll();
            Thread.sleep(500); // a polling period: the answers arrive on the client's threads
        }
        assertEquals(2, members.nodesUp(), members.json());
        assertEquals(1, members.notReady(), members.json());
        assertEquals(1, members.nodesReady(), members.json());
    }
}
