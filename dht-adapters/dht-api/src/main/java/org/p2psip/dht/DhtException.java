package org.p2psip.dht;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

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
     * The DhtException a failed stage stands for, so that a backend completes its callers' stages
     * as {@link Dht} promises: a DhtException as it is, a {@link TimeoutException} (as
     * {@code orTimeout} fails) as {@link Reason#TIMEOUT}, anything else as
     * {@link Reason#UNREACHABLE} with it as the cause, since a failure a backend did not name
     * itself most often comes from reaching another node. Wrappers are taken off first
     * ({@link #unwrap}).
     */
    public static DhtException from(Throwable failure) {
        return from(failure, Reason.UNREACHABLE);
    }

    /**
     * As {@link #from(Throwable)}, with the reason of a failure that is neither a DhtException nor
     * a timeout: {@link Reason#STORAGE}, say, where the failed work was this node's own.
     */
    public static DhtException from(Throwable failure, Reason otherwise) {
        Throwable cause = unwrap(failure);
        if (cause instanceof DhtException known) {
            return known;
        }
        return new DhtException(cause instanceof TimeoutException ? Reason.TIMEOUT : otherwise, String.valueOf(cause), cause);
    }

    /**
     * What a stage failed with, from under the {@link CompletionException}s (a dependent stage's)
     * and {@link ExecutionException}s ({@code get}'s) that wrap it; for a backend that reads the
     * failure before it decides what to make of it.
     */
    public static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    public Reason reason() {
        return reason;
    }

    @Override
    public String toString() {
        return "DhtException(" + reason + "): " + getMessage();
    }
}
