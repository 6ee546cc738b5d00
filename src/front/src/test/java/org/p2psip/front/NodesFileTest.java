package org.p2psip.front;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.config.Config;
import org.p2psip.front.nodes.Node;
import org.p2psip.front.nodes.Nodes;

/** The nodes changed while the front runs: Nodes.set, and the nodes file a deployment rewrites. */
class NodesFileTest {

    private static final InetSocketAddress A = new InetSocketAddress("127.0.0.1", 5070);
    private static final InetSocketAddress B = new InetSocketAddress("127.0.0.1", 5071);

    private final List<AutoCloseable> open = new ArrayList<>();

    @TempDir
    Path folder;

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    @Test
    void aNodeKeptKeepsItsStateOneLeftOutIsDownAndOneAddedHasAnIndexOfItsOwn() {
        var nodes = new Nodes(List.of(A, B));
        Node a = nodes.all().get(0);
        Node b = nodes.all().get(1);
        nodes.probeAnswered(Nodes.probeCallId(a), 200);
        nodes.probeAnswered(Nodes.probeCallId(b), 200);
        nodes.set(List.of(B));
        assertEquals(List.of(b), nodes.all());
        assertEquals(List.of(b), nodes.up(), "b kept up");
        assertFalse(a.up(), "a left out: down");
        nodes.probeAnswered(Nodes.probeCallId(a), 200);
        assertEquals(List.of(b), nodes.up(), "a probe answer of a node left out brings nothing back");
        nodes.set(List.of(B, A));
        Node again = nodes.all().get(1);
        assertSame(b, nodes.all().get(0));
        assertNotEquals(a.index(), again.index(), "a node added again is a new node");
        assertFalse(again.up(), "down until it answers");
    }

    @Test
    void aFileWithABadAddressOrNoNodeLeavesTheNodesAsTheyAre() throws Exception {
        var nodes = new Nodes(List.of(A));
        Path file = folder.resolve("nodes.txt");
        var reader = new NodesFile(file, nodes);
        Files.writeString(file, "127.0.0.1:5071\nnot-an-address:1\n");
        reader.run();
        assertEquals(List.of(A), nodes.all().stream().map(Node::address).toList());
        Files.writeString(file, "# none\n\n");
        Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(1_000));
        reader.run();
        assertEquals(List.of(A), nodes.all().stream().map(Node::address).toList());
        Files.writeString(file, "127.0.0.1:5071  # the new one\n127.0.0.1:5070\n");
        Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(2_000));
        reader.run();
        assertEquals(List.of(B, A), nodes.all().stream().map(Node::address).toList());
    }

    @Test
    void aRunningFrontSendsNewCallsToTheNodesItsFileListsNow() throws Exception {
        var first = new TestNode();
        var second = new TestNode();
        open.add(first);
        open.add(second);
        Path file = folder.resolve("nodes.txt");
        Files.writeString(file, first.address() + "\n");
        Front front = Front.start(Config.of(Map.of(
                FrontOptions.LISTEN.name(), "127.0.0.1:0",
                FrontOptions.NODES.name(), first.address(),
                FrontOptions.NODES_FILE.name(), file.toString(),
                FrontOptions.POLICY.name(), "rr",
                FrontOptions.PROBE_INTERVAL.name(), "50ms",
                FrontOptions.PROBE_TIMEOUT.name(), "2s",
                FrontOptions.THREADS.name(), "1")));
        open.add(front);
        var client = new TestClient(front.address());
        open.add(client);
        Await.until(() -> front.nodes().stream().allMatch(Node::up), () -> "the first node up");

        rewrite(file, second.address() + "\n" + first.address() + "\n", 5_000);
        Await.until(() -> front.nodes().size() == 2 && front.nodes().stream().allMatch(Node::up),
                () -> "both nodes up: " + front.nodes());
        for (int i = 0; i < 4; i++) {
            client.send("REGISTER", "added-" + i, "added-" + i, 1, null);
            assertEquals(200, client.receive().getStatusCode());
        }
        assertTrue(java.util.stream.IntStream.range(0, 4).anyMatch(i -> !second.withCallId("added-" + i).isEmpty()),
                "round robin over both: the added node got some");

        rewrite(file, second.address() + "\n", 10_000);
        Await.until(() -> front.nodes().size() == 1, () -> "the first node left out: " + front.nodes());
        for (int i = 0; i < 4; i++) {
            client.send("REGISTER", "removed-" + i, "removed-" + i, 1, null);
            assertEquals(200, client.receive().getStatusCode());
            assertTrue(first.withCallId("removed-" + i).isEmpty(), "nothing new to the node left out");
        }
    }

    /** The file replaced whole, as the deployment does, with a modification time of its own. */
    private static void rewrite(Path file, String text, long modifiedMillis) throws Exception {
        Path temporary = file.resolveSibling("nodes.txt.tmp");
        Files.writeString(temporary, text);
        Files.setLastModifiedTime(temporary, java.nio.file.attribute.FileTime.fromMillis(modifiedMillis));
        Files.move(temporary, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
}
