package org.p2psip.front.flows;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import org.p2psip.front.relay.Inbound;

/**
 * The pipeline of a client's stream connection. Over TCP: SIP framing, then the connection's
 * handler. Over TLS the same behind the TLS engine and its handshake watch, so a TLS client's
 * requests and answers take exactly the TCP client's path; only the transport its connection is
 * registered with differs. Shared by the connections of one listener (it keeps nothing of theirs).
 */
@ChannelHandler.Sharable
public final class StreamPipeline extends ChannelInitializer<SocketChannel> {

    private final SslContext tls;
    private final Inbound inbound;
    private final Connections connections;
    private final int maxMessage;

    /** {@code tls}: null for the plain TCP listener. */
    public StreamPipeline(SslContext tls, Inbound inbound, Connections connections, int maxMessage) {
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
