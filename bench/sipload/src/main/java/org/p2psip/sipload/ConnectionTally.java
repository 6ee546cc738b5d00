package org.p2psip.sipload;

/**
 * What a stream transport counted of its connections: opened, open now, refused (or not even
 * bound: no port left), closed by the server, keep-alive pings sent, pongs received and pongs still due (connections
 * whose last ping is unanswered: at the end, those in flight when the load stopped); over TLS
 * the handshakes done, their times (from the ClientHello to the end) and the handshakes that
 * failed. Used by the load's one thread only.
 */
final class ConnectionTally {
    long opened;
    long open;
    long refused;
    long closedByServer;
    long pings;
    long pongs;
    long pongsDue;
    long handshakes;
    long handshakeFailures;
    final LatencyHistogram handshakeTimes = new LatencyHistogram();
}
