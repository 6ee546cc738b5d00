package org.p2psip.overlay;

/** Bytes from a peer that are not a valid frame of this overlay: the connection they came on is closed. */
public class BadFrameException extends RuntimeException {
    public BadFrameException(String message) {
        super(message);
    }
}
