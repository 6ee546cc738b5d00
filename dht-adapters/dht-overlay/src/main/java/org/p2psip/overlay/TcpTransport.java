package org.p2psip.overlay;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.p2psip.config.HostPort;
import org.p2psip.dht.DhtException.Reason;

/**
 * The transport over TCP, built on Netty NIO: one event loop thread per node serves the
 * listening socket and every connection. One outbound connection per peer carries all of this
 * node's requests to it (opened on first use, reopened after it drops); answers go back on the
 * connection their request came in on.
 *
 * <p>Back-pressure: a peer whose connection holds more than the write-buffer bound unsent, or that
 * has too many requests queued while its connection opens, gets OVERLOADED at once.
 *
 * <p>Every frame is stamped and judged by {@link Replays} (one per node: a channel's sequence
 * holds across connections); with TLS on, {@link OverlayTls}' handlers come first on every
 * connection. Thread-safe.
 */
public final class TcpTransport extends AbstractTransport {

    /** A connection with no traffic either way this long is closed; it is reopened on next use. */
    static final int IDLE_SECONDS = 300;
    private static final System.Logger LOG = System.getLogger(TcpTransport.class.getName());

    private final NioEventLoopGroup group;
    private final Channel server;
    private final Map<String, ChannelFuture> connections = new HashMap<>();
    private final Map<String, Integer> queued = new HashMap<>();
    private final Strangers strangers = new Strangers(counters);
    private final SecureRandom channelIds = new SecureRandom();
    private final Clock clock;
    private final Replays replays;

    private TcpTransport(String address, OverlaySettings settings, NioEventLoopGroup group, Channel server, Clock clock) {
        super(address, settings, group.next());
        this.group = group;
        this.server = server;
        this.clock = clock;
        this.replays = new Replays(settings.replayWindow(), clock, counters);
    }

    /**
     * Listens on {@code listen} ("host:port"; port 0 picks a free one) and returns the transport,
     * whose {@link #address()} is the bound address. Blocks until bound: call it at start, not
     * on a request path. Throws IllegalStateException when the address cannot be bound.
     */
    public static TcpTransport bind(String listen, OverlaySettings settings) {
        return bind(listen, settings, Clock.systemUTC());
    }

    /** As {@link #bind(String, OverlaySettings)}, with the wall clock frames are stamped and judged by. */
    public static TcpTransport bind(String listen, OverlaySettings settings, Clock clock) {
        var group = new NioEventLoopGroup(1);
        var holder = new TcpTransport[1];
        try {
            Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            holder[0].initChannel(ch, null);
                        }
                    })
                    .bind(HostPort.parse(listen).socketAddress()).syncUninterruptibly().channel();
            String bound = HostPort.of((InetSocketAddress) server.localAddress()).toString();
            holder[0] = new TcpTransport(bound, settings, group, server, clock);
            return holder[0];
        } catch (Exception e) { // Netty rethrows the socket's checked BindException unchanged
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e instanceof RuntimeException r ? r : new IllegalStateException("cannot listen on " + listen + ": " + e, e);
        }
    }

    private void initChannel(Channel ch, String peer) {
        ch.config().setWriteBufferWaterMark(new WriteBufferWaterMark(settings.writeBufferBytes() / 2, settings.writeBufferBytes()));
        // TLS first: everything after it, the stranger's limits included, sees only decrypted bytes
        settings.tls().ifPresent(tls -> ch.pipeline().addLast(tls.handlers(peer != null)));
        // one write syscall for the answers and requests of one loop turn instead of one each
        ch.pipeline().addLast(new FlushConsolidationHandler(FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true),
                new IdleStateHandler(0, 0, IDLE_SECONDS),
                new FrameDecoder(new FrameCodec(settings.secret()), settings.maxFrameBytes(), replays));
        if (peer == null) { // accepted: a stranger until its first frame's MAC checks
            ch.pipeline().addLast(strangers.guard());
        }
        ch.pipeline().addLast(new FrameEncoder(new FrameCodec(settings.secret()), clock, channelIds.nextLong()),
                new PeerHandler(peer));
    }

    @Override
    protected void send(String peer, Frame frame, Pending request) {
        ChannelFuture connection = connections.get(peer);
        if (connection == null || (connection.isDone() && !connection.channel().isActive())) {
            connection = connect(peer);
            if (connection == null) {
                request.fail(Reason.UNREACHABLE, "cannot connect to " + peer);
                return;
            }
        }
        if (connection.isDone()) {
            write(connection.channel(), frame, request);
            return;
        }
        int waiting = queued.merge(peer, 1, Integer::sum);
        if (waiting > settings.maxQueuedPerPeer()) {
            queued.merge(peer, -1, Integer::sum);
            request.fail(Reason.OVERLOADED, waiting + " requests queued for " + peer + " while connecting");
            return;
        }
        connection.addListener(done -> {
            queued.merge(peer, -1, Integer::sum);
            if (done.isSuccess()) {
                write(((ChannelFuture) done).channel(), frame, request);
            } else {
                request.fail(Reason.UNREACHABLE, "cannot connect to " + peer + ": " + done.cause());
            }
        });
    }

    private ChannelFuture connect(String peer) {
        InetSocketAddress remote;
        try {
            remote = HostPort.parse(peer).socketAddress();
        } catch (IllegalArgumentException e) {
            return null;
        }
        ChannelFuture connection = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) settings.connectTimeout().toMillis())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        TcpTransport.this.initChannel(ch, peer);
                    }
                })
                .connect(remote);
        connections.put(peer, connection);
        connection.addListener(done -> {
            if (!done.isSuccess()) {
                connections.remove(peer, connection);
            }
        });
        return connection;
    }

    private void write(Channel channel, Frame frame, Pending request) {
        if (!channel.isActive()) {
            request.fail(Reason.UNREACHABLE, "connection to " + request.peer + " closed");
        } else if (!channel.isWritable()) {
            request.fail(Reason.OVERLOADED, "outbound buffer to " + request.peer + " is full");
        } else {
            channel.writeAndFlush(frame).addListener(done -> {
                if (!done.isSuccess()) {
                    request.fail(Reason.UNREACHABLE, "cannot write to " + request.peer + ": " + done.cause());
                }
            });
        }
    }

    /** Inbound side of every connection: requests to the responder, answers to their requests. */
    private final class PeerHandler extends SimpleChannelInboundHandler<Frame> {
        private final String peer; // null on accepted connections: those carry requests to us

        PeerHandler(String peer) {
            this.peer = peer;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
            if (frame.kind() == Frame.Kind.REQUEST) {
                serveRequest(frame, answer -> {
                    if (ctx.channel().isActive()) {
                        ctx.writeAndFlush(answer);
                    }
                });
            } else {
                answered(frame);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            if (peer != null) {
                ChannelFuture current = connections.get(peer);
                if (current != null && current.channel() == ctx.channel()) {
                    connections.remove(peer);
                }
                lost(peer, "connection closed");
            }
            super.channelInactive(ctx);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
            if (event instanceof IdleStateEvent) {
                ctx.close();
            } else if (event instanceof SslHandshakeCompletionEvent done && !done.isSuccess()) {
                handshakeFailed(ctx, done.cause()); // the SslHandler closes the connection itself
            } else {
                super.userEventTriggered(ctx, event);
            }
        }

        private void handshakeFailed(ChannelHandlerContext ctx, Throwable cause) {
            if (counters.get(OverlayTls.HANDSHAKE_FAILURES) == 0) { // the first only: a scanner would flood the log
                LOG.log(System.Logger.Level.WARNING, "overlay: TLS handshake with {0} failed ({1}); further ones are"
                        + " only counted in " + OverlayTls.HANDSHAKE_FAILURES, ctx.channel().remoteAddress(), cause.toString());
            }
            counters.increment(OverlayTls.HANDSHAKE_FAILURES);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof DecoderException && cause.getCause() instanceof BadFrameException
                    || cause instanceof BadFrameException) {
                counters.increment(BAD_FRAMES);
            }
            ctx.close();
        }
    }

    @Override
    public void close() {
        if (isClosed()) {
            return;
        }
        closePending();
        server.close();
        // a copy: closing a channel removes it from connections at once (ConcurrentModificationException)
        executor().execute(() -> List.copyOf(connections.values()).forEach(c -> c.channel().close()));
        var stopped = group.shutdownGracefully(0, 500, TimeUnit.MILLISECONDS);
        if (!executor().inEventLoop()) {
            stopped.awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
    }
}
