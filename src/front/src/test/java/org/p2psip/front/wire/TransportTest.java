package org.p2psip.front.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.DatagramChannel;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class TransportTest {

    /** Linux grants twice what is asked, up to twice net.core.rmem_max. */
    @Test
    void udpSocketsGetTheAskedReceiveBuffer() throws Exception {
        long cap;
        try (var in = Files.newInputStream(Path.of("/proc/sys/net/core/rmem_max"))) {
            cap = Long.parseLong(new String(in.readAllBytes(), StandardCharsets.US_ASCII).strip());
        }
        SocketLayer transport = SocketLayer.best();
        EventLoopGroup group = transport.group(1);
        try {
            Channel udp = transport.udp(group, 8_000).handler(new ChannelInboundHandlerAdapter())
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            long granted = ((DatagramChannel) udp).config().getReceiveBufferSize();
            long expected = 2L * Math.min(SocketLayer.RECEIVE_BUFFER_BYTES, cap);
            assertEquals(expected, granted);
            udp.close().sync();
        } finally {
            group.shutdownGracefully().sync();
        }
    }
}
