package org.p2psip.front.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class SocketQueueTest {

    private static final String TABLE = String.join("\n",
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops",
            " 1118: 0100007F:8785 00000000:0000 07 00000000:00001900 00:00000000 00000000     0        0 2705690 2 0000000057ec1601 0",
            "13869: 0100007F:7954 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 2689529 2 00000000ea8bf674 0");

    @Test
    void theQueueIsTheRxColumnOfTheSocketsLine() {
        assertEquals(0x1900, SocketQueue.find(TABLE, "2705690"));
        assertEquals(0, SocketQueue.find(TABLE, "2689529"));
        assertEquals(-1, SocketQueue.find(TABLE, "42"), "a socket not in the table");
    }

    @Test
    void datagramsNobodyReadWaitInTheQueue() throws Exception {
        assumeTrue(Epoll.isAvailable(), "the queue is read for epoll channels only");
        var group = new EpollEventLoopGroup(1);
        try (var sender = new DatagramSocket()) {
            Channel channel = new Bootstrap().group(group).channel(EpollDatagramChannel.class)
                    .option(ChannelOption.AUTO_READ, false)
                    .handler(new ChannelInboundHandlerAdapter())
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            var queue = SocketQueue.of(channel);
            assertEquals(0, queue.bytes(), "nothing sent yet");
            assertTrue(queue.capacity() > 0);
            byte[] datagram = new byte[500];
            for (int i = 0; i < 20; i++) {
                sender.send(new DatagramPacket(datagram, datagram.length, channel.localAddress()));
            }
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (queue.bytes() < 20 * 500 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertTrue(queue.bytes() >= 20 * 500, "20 datagrams of 500 bytes wait unread: " + queue.bytes());
            channel.close().sync();
        } finally {
            group.shutdownGracefully().sync();
        }
    }

    @Test
    void aChannelThatIsNotEpollHasNoQueueToRead() {
        assertEquals(-1, SocketQueue.of(null).bytes());
    }
}
