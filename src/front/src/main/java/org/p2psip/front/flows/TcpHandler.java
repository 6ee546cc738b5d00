package org.p2psip.front.flows;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.net.InetSocketAddress;
import org.p2psip.front.relay.Inbound;
import org.p2psip.front.relay.StreamFrame;

/**
 * A client's TCP connection, or the stream inside its TLS connection: registered under an id (with
 * its transport) while open, so answers can find it; a stream that cannot be framed is counted and
 * closed. One per connection; Netty calls it from the connection's event-loop thread only.
 */
final class TcpHandler extends SimpleChannelInboundHandler<StreamFrame> {

    private final Inbound inbound;
    private final Connections connections;
    private final String transport;
    private long id;

    /** {@code transport}: "TCP" or "TLS", as the client's Via names it. */
    TcpHandler(Inbound inbound, Connections connections, String transport) {
        this.inbound = inbound;
        this.connections = connections;
        this.transport = transport;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        id = connections.register(ctx.channel(), transport);
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        connections.unregister(id);
        super.channelInactive(ctx);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, StreamFrame frame) {
        if (!inbound.accept(frame, (InetSocketAddress) ctx.channel().remoteAddress(), id)) {
            ctx.close(); // a message that does not parse: the stream is not believed further
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        inbound.stats().unparsable.increment();
        ctx.close();
    }
}
