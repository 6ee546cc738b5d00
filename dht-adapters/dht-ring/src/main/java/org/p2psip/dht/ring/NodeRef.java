package org.p2psip.dht.ring;

import java.util.Objects;

/** A node as others know it: its identifier and overlay address. Immutable. */
public record NodeRef(Id id, String address) {

    public NodeRef {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(address, "address");
    }

    /** The node at {@code address} whose id is the SHA-1 of that address. */
    public static NodeRef at(String address) {
        return new NodeRef(Id.hash(address), address);
    }

    @Override
    public String toString() {
        return address + "/" + id.toString().substring(0, 8);
    }
}
