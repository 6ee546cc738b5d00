package org.p2psip.front;

import io.netty.channel.Channel;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The clients' open TCP connections by id (the id travels in the front's Via). An entry lives
 * exactly as long as its connection, so the map is bounded by the open connections.
 * Thread-safe.
 */
final class Connections {

    private final ConcurrentHashMap<Long, Channel> open = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong(Outlet.UDP);

    long register(Channel channel) {
        long id = ids.incrementAndGet();
        open.put(id, channel);
        return id;
    }

    void unregister(long id) {
        open.remove(id);
    }

    /** The connection, or null if it has closed. */
    Channel get(long id) {
        return open.get(id);
    }

    int size() {
        return open.size();
    }
}
