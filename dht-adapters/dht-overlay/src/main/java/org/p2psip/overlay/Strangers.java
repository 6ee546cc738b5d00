package org.p2psip.overlay;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import org.p2psip.dht.Counters;

/**
 * What a node lets a connection it accepted hold before the connection has proven it knows the
 * overlay's secret (its {@link Handshake} completed): at most {@link #MAX} such connections at
 * once, {@link #MAX_PER_SOURCE} from one address, each closed after the patience
 * ({@link OverlayOptions#HANDSHAKE_PATIENCE}) without completing the handshake; and the handshake reads at most {@link #FIRST_FRAME_BYTES}
 * of such a connection's first message. So a stranger opening hundreds of connections and
 * announcing 4 MiB messages makes the node hold a few MiB for a few seconds, not gigabytes. One
 * per transport; used on its event loop only.
 */
final class Strangers {

    static final int MAX = 256;
    static final int MAX_PER_SOURCE = 64;
    /** Longest first message (the hello) a connection may send; a node's is far smaller. */
    static final int FIRST_FRAME_BYTES = 64 * 1024;

    static final String REFUSED = "overlay.strangers-refused";
    static final String TIMED_OUT = "overlay.strangers-timed-out";

    private final Map<InetAddress, Integer> bySource = new HashMap<>();
    private final Counters counters;
    private final Duration handshakeWithin;
    private int count;

    Strangers(Counters counters, Duration patience) {
        this.counters = counters;
        this.handshakeWithin = patience;
    }

    /** The guard of one accepted connection; it leaves the pipeline once the handshake is established. */
    ChannelInboundHandlerAdapter guard() {
        return new Guard();
    }

    private boolean admit(InetAddress source) {
        int fromSource = bySource.getOrDefault(source, 0);
        if (count >= MAX || fromSource >= MAX_PER_SOURCE) {
            return false;
        }
        bySource.put(source, fromSource + 1);
        count++;
        return true;
    }

    private void leave(InetAddress source) {
        count--;
        bySource.computeIfPresent(source, (s, n) -> n > 1 ? n - 1 : null);
    }

    private final class Guard extends ChannelInboundHandlerAdapter {
        private InetAddress source;
        private ScheduledFuture<?> patience;

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            InetAddress from = ((InetSocketAddress) ctx.channel().remoteAddress()).getAddress();
            if (!admit(from)) {
                counters.increment(REFUSED);
                ctx.close();
                return;
            }
            source = from;
            patience = ctx.executor().schedule(() -> {
                counters.increment(TIMED_OUT);
                ctx.close();
            }, handshakeWithin.toNanos(), TimeUnit.NANOSECONDS);
            super.channelActive(ctx);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
            if (event == Handshake.ESTABLISHED && source != null) { // the peer proved it holds the secret
                release();
                ctx.fireUserEventTriggered(event);
                ctx.pipeline().remove(this);
                return;
            }
            super.userEventTriggered(ctx, event);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            release();
            super.channelInactive(ctx);
        }

        private void release() {
            if (source != null) {
                patience.cancel(false);
                leave(source);
                source = null;
            }
        }
    }
}
