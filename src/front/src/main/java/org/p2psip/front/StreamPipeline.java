package org.p2psip.front;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;

/**
 * The pipeline of a client's stream connection. Over TCP: SIP framing, then the connection's
 * handler. Over TLS the same behind the TLS engine and its handshake watch, so a TLS client's
 * requests and answers take exactly the TCP client's path; only the transport its connection is
 * registered with differs. Shared by the connections of one listener (it keeps nothing of theirs).
 */
@ChannelHandler.Sharable
final class StreamPipeline extends ChannelInitializer<SocketChannel> {

    private final SslContext tls;
    private final Inbound inbound;
    private final Connections connections;
    private final int maxMessage;

    /** {@code tls}: null for the plain TCP listener. */
    StreamPipeline(SslContext tls, Inbound inbound, Connections connections, int maxMessage) {
        this.tls = tls;
        this.inbound = inbound;
        this.connections = connections;
        this.maxMessage = maxMessage;
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        if (tls != null) {
            channel.pipeline().addLast(tls.newHandler(channel.alloc()), new TlsHandshakeWatch(inbound.stats()));
        }
        channel.pipeline().addLast(new SipStreamFramer(maxMessage, inbound.stats()),
                new TcpHandler(inbound, connections, tls == null ? "TCP" : "TLS"));
    }
}
