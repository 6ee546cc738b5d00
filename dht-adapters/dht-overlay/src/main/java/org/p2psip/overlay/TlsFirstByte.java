package org.p2psip.overlay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;

/**
 * In front of the SslHandler of a connection accepted with TLS on: if the connection's first byte
 * cannot begin a TLS handshake record, the peer is not speaking TLS (a node with TLS off: its hello
 * starts with a length), and the connection is closed at once as a failed handshake. Without it
 * the SslHandler reads a plain hello as the start of an SSLv2-format record (the hello's version
 * byte stands where that format puts its major version) and waits for the rest until the stranger's patience
 * runs out, so a misconfigured peer would see timeouts instead of a refusal. Leaves the pipeline
 * after the first byte.
 */
final class TlsFirstByte extends ChannelInboundHandlerAdapter {

    /** TLS record content type "handshake": every TLS 1.3 connection begins with a ClientHello in one. */
    private static final int HANDSHAKE_RECORD = 22;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf bytes) || !bytes.isReadable()) {
            ctx.fireChannelRead(msg);
            return;
        }
        int first = bytes.getUnsignedByte(bytes.readerIndex());
        if (first == HANDSHAKE_RECORD) {
            ctx.fireChannelRead(msg);
            ctx.pipeline().remove(this);
            return;
        }
        bytes.release();
        ctx.fireUserEventTriggered(new SslHandshakeCompletionEvent(
                new NotSslRecordException("first byte " + first + ": the peer does not speak TLS")));
        ctx.close();
    }
}
