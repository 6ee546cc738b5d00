package org.p2psip.dht.bamboo.wire;

/** Bytes that are not a whole message of a format this node reads; the transport drops the connection. */
public class MalformedMessageException extends IllegalArgumentException {
    public MalformedMessageException(String message) {
        super(message);
    }
}
