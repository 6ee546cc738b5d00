package org.p2psip.front.flows;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.p2psip.front.status.FrontStats;

/**
 * Sits behind the SslHandler of a client's TLS connection. A handshake that fails (plain TCP on
 * the TLS port, a certificate the client refuses, no common protocol, silence past the handshake
 * time-out, a hang-up before it ends) is counted once and its connection closed; the front serves
 * on. Errors before the handshake ends stop here, so they are not also counted as unparsable SIP.
 * One per connection; Netty calls it from the connection's thread only.
 */
final class TlsHandshakeWatch extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = System.getLogger(TlsHandshakeWatch.class.getName());
    /** Kinds of failure already logged: each is logged once, then only counted (a scanner can make many). */
    private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();

    private final FrontStats stats;
    private boolean ended;
    private boolean succeeded;

    TlsHandshakeWatch(FrontStats stats) {
        this.stats = stats;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof SslHandshakeCompletionEvent handshake && !ended) {
            ended = true;
            succeeded = handshake.isSuccess();
            if (!succeeded) {
                failed(ctx, handshake.cause());
                return;
            }
        }
        super.userEventTriggered(ctx, event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
        if (succeeded) {
            super.exceptionCaught(ctx, cause); // after the handshake: the SIP stream's business
            return;
        }
        ctx.close(); // the handshake's failure, counted at its completion event
    }

    private void failed(ChannelHandlerContext ctx, Throwable cause) {
        stats.tlsHandshakeFailures.increment();
        String kind = cause.getClass().getSimpleName();
        if (LOGGED.add(kind)) {
            LOG.log(Level.INFO, "TLS handshake with {0} failed ({1}: {2}); connection closed. Each kind is "
                    + "logged once; every failure is counted in tlsHandshakeFailures",
                    ctx.channel().remoteAddress(), kind, shortened(cause.getMessage()));
        }
        ctx.close();
    }

    /** Netty's message for plain text on the port is a hex dump of all the client sent: its start says enough. */
    private static String shortened(String message) {
        return message == null || message.length() <= 100 ? message : message.substring(0, 100) + "...";
    }
}
