package org.p2psip.front.wire;

import io.netty.channel.Channel;
import io.netty.channel.epoll.EpollDatagramChannel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The bytes waiting in a UDP socket's kernel receive queue, as Linux shows them in
 * {@code /proc/net/udp} and {@code udp6} (the {@code rx_queue} column of the socket's line, found
 * by its inode): how far behind its socket a loop really is. A loop's busy time alone cannot tell
 * a front that falls behind from one that is slow for a moment (a cold JIT, a core taken by the
 * nodes beside it) while the socket still holds everything; the queue can. Unknown (-1) where
 * there is no such file or the channel is not an epoll one.
 *
 * <p>Read on the UDP loop only when the loop is busy: a few hundred bytes from the kernel's memory,
 * no disk.
 */
public final class SocketQueue {

    /** A queue nobody can read: {@link #bytes} is always -1. */
    public static final SocketQueue UNKNOWN = new SocketQueue(null, 0);
    private static final List<Path> TABLES = List.of(Path.of("/proc/net/udp6"), Path.of("/proc/net/udp"));
    private static final int INODE_COLUMN = 9;
    private static final int QUEUES_COLUMN = 4;

    private final String inode;
    private final long capacity;

    private SocketQueue(String inode, long capacity) {
        this.inode = inode;
        this.capacity = capacity;
    }

    /** The queue of {@code channel}'s socket, or {@link #UNKNOWN}. */
    public static SocketQueue of(Channel channel) {
        if (!(channel instanceof EpollDatagramChannel epoll)) {
            return UNKNOWN;
        }
        try {
            String link = Files.readSymbolicLink(Path.of("/proc/self/fd/" + epoll.fd().intValue())).toString();
            if (!link.startsWith("socket:[") || !link.endsWith("]")) {
                return UNKNOWN;
            }
            var queue = new SocketQueue(link.substring(8, link.length() - 1), epoll.config().getReceiveBufferSize());
            return queue.bytes() < 0 ? UNKNOWN : queue;
        } catch (IOException | UnsupportedOperationException e) {
            return UNKNOWN;
        }
    }

    /** The socket's receive buffer (SO_RCVBUF as the kernel keeps it), the most its queue holds; 0 when unknown. */
    public long capacity() {
        return capacity;
    }

    /** The bytes in the socket's receive queue now; -1 when unknown. */
    long bytes() {
        if (inode == null) {
            return -1;
        }
        for (Path table : TABLES) {
            try {
                long found = find(Files.readString(table, StandardCharsets.US_ASCII), inode);
                if (found >= 0) {
                    return found;
                }
            } catch (IOException e) {
                // this table is missing (no IPv6); the other may have the socket
            }
        }
        return -1;
    }

    /** The rx_queue of the line of {@code table} whose inode is {@code inode}; -1 when none. */
    static long find(String table, String inode) {
        for (String line : table.split("\n")) {
            String[] columns = line.trim().split("\\s+");
            if (columns.length > INODE_COLUMN && columns[INODE_COLUMN].equals(inode)) {
                String queues = columns[QUEUES_COLUMN];
                int colon = queues.indexOf(':');
                return colon < 0 ? -1 : Long.parseLong(queues.substring(colon + 1), 16);
            }
        }
        return -1;
    }
}
