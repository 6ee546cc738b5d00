package org.p2psip.dht;

/** Bytes that are not a binding set of a format this node reads. */
public class MalformedBindingException extends IllegalArgumentException {
    public MalformedBindingException(String message) {
        super(message);
    }
}
