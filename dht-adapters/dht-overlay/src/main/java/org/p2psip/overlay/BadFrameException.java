package org.p2psip.overlay;

/**
 * Bytes from a peer that this node refuses: the connection they came on is closed, and the
 * refusal counted in {@link #counter()}.
 */
public class BadFrameException extends RuntimeException {

    private final String counter;

    /** Malformed input, counted in {@link AbstractTransport#BAD_FRAMES}. */
    public BadFrameException(String message) {
        this(AbstractTransport.BAD_FRAMES, message);
    }

    /** Input refused for the reason the counter {@code counter} counts. */
    public BadFrameException(String counter, String message) {
        super(message);
        this.counter = counter;
    }

    /** The counter that counts this refusal. */
    public String counter() {
        return counter;
    }
}
