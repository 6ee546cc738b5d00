package org.p2psip.front.wire;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollMode;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The socket layer: Linux's native epoll when it loads, since it reads several datagrams per
 * system call (recvmmsg) and writes a flushed batch with one (sendmmsg), which halves the system
 * time of a front that is all small datagrams; JDK NIO elsewhere. Stateless.
 */
public final class SocketLayer {

    /** Datagrams read by one recvmmsg at most. */
    static final int DATAGRAMS_PER_READ = 16;

    /**
     * Kernel receive buffer of each UDP socket (SO_RCVBUF, capped by net.core.rmem_max). A node
     * answers in a burst when it resumes after a collector pause, and this JVM has pauses of its
     * own: the default (about 200 KiB) overflows in either, and every datagram lost comes back as a
     * retransmission. The nodes and SIPp ask for the same (deploy/README.md).
     */
    static final int RECEIVE_BUFFER_BYTES = 2 * 1024 * 1024;

    private static final Logger LOG = System.getLogger(SocketLayer.class.getName());
    private static final AtomicBoolean LOGGED = new AtomicBoolean();

    private final boolean epoll;

    private SocketLayer(boolean epoll) {
        this.epoll = epoll;
    }

    /** Epoll if this machine has it; says which in the log, once per process. */
    public static SocketLayer best() {
        boolean epoll = Epoll.isAvailable();
        if (LOGGED.compareAndSet(false, true)) {
            LOG.log(Level.INFO, epoll ? "sockets: native epoll (recvmmsg, sendmmsg)"
                    : "sockets: JDK NIO (epoll unavailable: " + Epoll.unavailabilityCause() + ")");
        }
        return new SocketLayer(epoll);
    }

    public EventLoopGroup group(int threads) {
        return epoll ? new EpollEventLoopGroup(threads) : new NioEventLoopGroup(threads);
    }

    /** Binds {@code bootstrap}'s sockets with SO_REUSEPORT; only under epoll (an IllegalArgumentException otherwise). */
    public <B extends io.netty.bootstrap.AbstractBootstrap<B, ?>> B reusePort(B bootstrap) {
        if (!epoll) {
            throw new IllegalArgumentException("p2psip.front.reuse-port needs Linux's native epoll, which did not load");
        }
        return bootstrap.option(EpollChannelOption.SO_REUSEPORT, true);
    }

    public Class<? extends ServerChannel> serverChannel() {
        return epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /**
     * A UDP bootstrap that hands over datagrams of up to {@code maxMessage} bytes. Under epoll each
     * datagram gets a slot one byte larger than the limit, so one that was cut short by its slot is
     * still seen as too large and dropped.
     */
    public Bootstrap udp(EventLoopGroup group, int maxMessage) {
        Class<? extends DatagramChannel> type = epoll ? EpollDatagramChannel.class : NioDatagramChannel.class;
        var bootstrap = new Bootstrap().group(group).channel(type)
                .option(ChannelOption.SO_RCVBUF, RECEIVE_BUFFER_BYTES);
        if (!epoll) {
            return bootstrap.option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(65_536));
        }
        int slot = maxMessage + 1;
        // Level-triggered: a read batch that got fewer datagrams than it had room for ends without
        // one more recvmmsg to see EAGAIN, as edge-triggered mode needs; epoll reports what is left.
        return bootstrap.option(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, slot)
                .option(EpollChannelOption.EPOLL_MODE, EpollMode.LEVEL_TRIGGERED)
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(slot * DATAGRAMS_PER_READ));
    }
}
