package org.p2psip.dht.bamboo.routing;

import java.util.Objects;
import org.p2psip.dht.ring.Id;

/** A node as others know it: its id on the circle and the overlay address it listens on. Immutable. */
public record NodeHandle(Id id, String address) {

    public NodeHandle {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(address, "address");
    }

    @Override
    public String toString() {
        return id.toString().substring(0, 6) + "@" + address;
    }
}
