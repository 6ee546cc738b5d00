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

    /**
     * The DhtException a failed stage carries: {@code failure} itself, or the cause a
     * CompletionException or ExecutionException wraps; anything else is UNREACHABLE with it as cause.
     */
    public static DhtException from(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof java.util.concurrent.CompletionException
                || cause instanceof java.util.concurrent.ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause instanceof DhtException d ? d : new DhtException(Reason.UNREACHABLE, String.valueOf(cause), cause);
    }

    public Reason reason() {
        return reason;
    }

    @Override
    public String toString() {
        return "DhtException(" + reason + "): " + getMessage();
    }
}
