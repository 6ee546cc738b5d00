package org.p2psip.front.flows;

import io.netty.channel.Channel;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.p2psip.front.wire.Destination;

/**
 * The clients' open TCP and TLS connections by id (the id travels in the front's Via), each with
 * its transport as a Via names it, since an answer's Via must name the transport it goes by. An
 * entry lives exactly as long as its connection, so the map is bounded by the open connections.
 * Thread-safe.
 */
public final class Connections {

    private record Open(Channel channel, String transport) {
    }

    private final ConcurrentHashMap<Long, Open> open = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong(Destination.UDP);

    /** {@code transport}: "TCP" or "TLS". */
    long register(Channel channel, String transport) {
        long id = ids.incrementAndGet();
        open.put(id, new Open(channel, transport));
        return id;
    }

    void unregister(long id) {
        open.remove(id);
    }

    /** The connection, or null if it has closed. */
    public Channel get(long id) {
        Open connection = open.get(id);
        return connection == null ? null : connection.channel;
    }

    /** "TCP" or "TLS", or null if it has closed. */
    public String transport(long id) {
        Open connection = open.get(id);
        return connection == null ? null : connection.transport;
    }

    public int size() {
        return open.size();
    }
}
