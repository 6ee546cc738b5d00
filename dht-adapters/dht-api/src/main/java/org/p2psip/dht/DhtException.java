package org.p2psip.dht;

/** Why a DHT operation failed; the servlet answers each with 503 and Retry-After. */
public class DhtException extends RuntimeException {

    public enum Reason {
        /** No answer before the operation's deadline. */
        TIMEOUT,
        /** The node responsible for the key could not be reached, or the overlay has no route to it. */
        UNREACHABLE,
        /** Local storage failed (disk full, I/O error). */
        STORAGE,
        /** Too much work in flight: refused at once instead of queued. */
        OVERLOADED,
        /** The DHT was closed. */
        CLOSED
    }

    private final Reason reason;

    public DhtException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public DhtException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    @Override
    public String toString() {
        return "DhtException(" + reason + "): " + getMessage();
    }
}
