package org.p2psip.dht.bryan;

import java.util.Objects;

/** One header of a peer message as a transport carries it: a DHT-* name and its text. Immutable. */
public record PeerHeader(String name, String value) {

    public PeerHeader {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
    }

    /** The comma-separated parts of the value, trimmed: no DHT-* value contains a comma of its own. */
    public java.util.stream.Stream<String> parts() {
        return java.util.Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty());
    }
}
