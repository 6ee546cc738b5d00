package org.p2psip.front;

import gov.nist.javax.sip.message.SIPMessage;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.net.InetSocketAddress;

/**
 * A client's TCP connection: registered under an id while open, so answers can find it; a
 * stream that cannot be framed is counted and closed. One per connection; Netty calls it from the
 * connection's event-loop thread only.
 */
final class TcpHandler extends SimpleChannelInboundHandler<SIPMessage> {

    private final Inbound inbound;
    private final Connections connections;
    private long id;

    TcpHandler(Inbound inbound, Connections connections) {
        this.inbound = inbound;
        this.connections = connections;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        id = connections.register(ctx.channel());
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        connections.unregister(id);
        super.channelInactive(ctx);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, SIPMessage message) {
        inbound.accept(message, (InetSocketAddress) ctx.channel().remoteAddress(), id);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        inbound.stats().unparsable.increment();
        ctx.close();
    }
}
