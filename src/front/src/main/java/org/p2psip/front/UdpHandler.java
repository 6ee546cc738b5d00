package org.p2psip.front;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import java.text.ParseException;
import org.p2psip.front.flows.Keepalive;
import org.p2psip.front.relay.Inbound;
import org.p2psip.front.wire.Backlog;
import org.p2psip.front.wire.DatagramBatch;
import org.p2psip.front.wire.Destination;
import org.p2psip.front.wire.SipParser;

/** One datagram, one SIP message (RFC 3261 §18.3). Stateless, so shared. */
@ChannelHandler.Sharable
final class UdpHandler extends SimpleChannelInboundHandler<DatagramPacket> {

    private final Inbound inbound;
    private final int maxMessage;
    private final DatagramBatch batch;
    private final Backlog backlog;

    UdpHandler(Inbound inbound, int maxMessage, DatagramBatch batch, Backlog backlog) {
        this.inbound = inbound;
        this.maxMessage = maxMessage;
        this.batch = batch;
        this.backlog = backlog;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        batch.end(); // one flush for all the read batch wrote
        backlog.readDone(System.nanoTime());
        ctx.fireChannelReadComplete();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
        backlog.reading(System.nanoTime());
        batch.begin();
        if (Keepalive.isOnly(packet.content())) {
            return; // RFC 5626 keep-alive, not a message
        }
        if (packet.content().readableBytes() > maxMessage) {
            inbound.stats().unparsable.increment();
            return;
        }
        byte[] bytes = ByteBufUtil.getBytes(packet.content());
        if (inbound.acceptRaw(bytes, packet.sender(), Destination.UDP)) {
            return; // read lazily and forwarded; JAIN-SIP's full parse only for what the fast path leaves
        }
        try {
            inbound.accept(SipParser.parse(bytes, true), packet.sender(), Destination.UDP);
        } catch (ParseException e) {
            inbound.stats().unparsable.increment();
        }
    }
}
