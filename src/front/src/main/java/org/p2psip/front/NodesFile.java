package org.p2psip.front;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.stream.Collectors;
import org.p2psip.front.nodes.Node;
import org.p2psip.front.nodes.Nodes;
import org.p2psip.front.wire.Addresses;

/**
 * The nodes file ({@code --nodes-file}): each run reads it when its modification time changed and
 * makes the nodes those it lists, one IP:port a line (blank lines and lines after {@code #} left
 * out), logging {@code nodes now} with the list, which is how a deployment tool knows the front
 * took it. A file that cannot be read, lists no node or a bad address leaves the nodes as they are,
 * logged once per change. Runs on a thread of its own, never an event loop: it reads a file.
 */
final class NodesFile implements Runnable {

    private static final Logger LOG = System.getLogger(NodesFile.class.getName());
    static final String NODES_NOW = "nodes now ";

    private final Path path;
    private final Nodes nodes;
    private FileTime seen;

    NodesFile(Path path, Nodes nodes) {
        this.path = path;
        this.nodes = nodes;
    }

    @Override
    public void run() {
        FileTime modified;
        try {
            modified = Files.getLastModifiedTime(path);
        } catch (IOException e) {
            modified = FileTime.fromMillis(0);
        }
        if (modified.equals(seen)) {
            return;
        }
        seen = modified;
        try {
            List<InetSocketAddress> listed = parse(Files.readString(path));
            nodes.set(listed);
            LOG.log(Level.INFO, NODES_NOW + text(listed));
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "nodes file {0} not taken, the nodes stay {1}: {2}", path, text(addresses()), e.toString());
        }
    }

    private List<InetSocketAddress> addresses() {
        return nodes.all().stream().map(Node::address).toList();
    }

    static List<InetSocketAddress> parse(String text) {
        return text.lines().map(line -> line.replaceFirst("#.*", "").strip()).filter(line -> !line.isEmpty())
                .map(Addresses::parse).toList();
    }

    /** {@code IP:port,IP:port}, as the file and the deployment tool write them. */
    static String text(List<InetSocketAddress> addresses) {
        return addresses.stream().map(a -> a.getAddress().getHostAddress() + ":" + a.getPort())
                .collect(Collectors.joining(","));
    }
}
