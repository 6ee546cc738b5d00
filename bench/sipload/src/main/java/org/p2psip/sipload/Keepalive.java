package org.p2psip.sipload;

/**
 * The keep-alive exchange on one connection (RFC 5626 §3.5.1): a client's ping is CRLFCRLF and
 * the server's pong one CRLF. A CRLF that arrives while our ping is out is its pong; two CRLFs in
 * a row otherwise are the server's ping, answered with one CRLF; a lone one is let be. A message
 * between two CRLFs keeps them apart. Used by the load's one thread only.
 */
final class Keepalive {
    static final byte[] PING = {'\r', '\n', '\r', '\n'};
    static final byte[] PONG = {'\r', '\n'};

    /** What a CRLF that arrived was. */
    enum Heard {
        /** The answer to our ping. */
        PONG,
        /** The second half of the server's ping: answer it with {@link #PONG}. */
        PING,
        /** Half of something, or nothing we asked for. */
        NOTHING
    }

    private boolean awaitingPong;
    private boolean halfPing;

    /** Whether this ping is the only one out: false when the last one's pong never came. */
    boolean pingSent() {
        boolean first = !awaitingPong;
        awaitingPong = true;
        halfPing = false;
        return first;
    }

    Heard crlf() {
        if (awaitingPong) {
            awaitingPong = false;
            return Heard.PONG;
        }
        if (halfPing) {
            halfPing = false;
            return Heard.PING;
        }
        halfPing = true;
        return Heard.NOTHING;
    }

    void message() {
        halfPing = false;
    }
}
