package org.p2psip.servlet;

/** A request the servlet refuses before any DHT work: answered with {@code status} and {@code reason}. */
final class BadRequest extends Exception {

    private final int status;

    BadRequest(int status, String reason) {
        super(reason, null, false, false);
        this.status = status;
    }

    BadRequest(String reason) {
        this(400, reason);
    }

    int status() {
        return status;
    }

    String reason() {
        return getMessage();
    }
}
