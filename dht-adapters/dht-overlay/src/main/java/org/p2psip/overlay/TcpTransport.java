package org.p2psip.overlay;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
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
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.InetSocketAddress;
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
 * <p>Every connection begins with a {@link Handshake} that proves both ends hold the overlay's
 * secret and gives the connection its keys; then frames travel in batches, one MAC each
 * ({@link BatchWriter}, {@link BatchReader}). With TLS on, {@link OverlayTls}' handlers come first
 * on every connection. Thread-safe.
 */
public final class TcpTransport extends AbstractTransport {

    /** A connection with no traffic either way this long is closed; it is reopened on next use. */
    static final int IDLE_SECONDS = 300;
    /** Connections whose handshake completed: the peer proved it holds the secret. */
    public static final String HANDSHAKES = "overlay.handshakes";
    /** Connections closed because the peer's proof was wrong, or (opened ones) it did not complete the handshake in time. */
    public static final String HANDSHAKES_REFUSED = "overlay.handshakes-refused";
    /** Batches written, one MAC computed each. */
    public static final String BATCHES_SENT = "overlay.batches-sent";
    /** Batches whose MAC checked, one MAC computed each (those that failed count in REPLAYS_REFUSED). */
    public static final String BATCHES_RECEIVED = "overlay.batches-received";
    private static final System.Logger LOG = System.getLogger(TcpTransport.class.getName());

    private final NioEventLoopGroup group;
    private final Channel server;
    /** Per peer, this node's connection to it: done once its handshake lets requests go, or failed. */
    private final Map<String, Future<Channel>> connections = new HashMap<>();
    private final Map<String, Integer> queued = new HashMap<>();
    private final Strangers strangers = new Strangers(counters, settings.handshakePatience());

    private TcpTransport(String address, OverlaySettings settings, NioEventLoopGroup group, Channel server) {
        super(address, settings, group.next());
        this.group = group;
        this.server = server;
    }

    /**
     * Listens on {@code listen} ("host:port"; port 0 picks a free one) and returns the transport,
     * whose {@link #address()} is the bound address. Blocks until bound: call it at start, not
     * on a request path. Throws IllegalStateException when the address cannot be bound.
     */
    public static TcpTransport bind(String listen, OverlaySettings settings) {
        var group = new NioEventLoopGroup(1);
        var holder = new TcpTransport[1];
        try {
            Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            holder[0].initChannel(ch, null, null);
                        }
                    })
                    .bind(HostPort.parse(listen).socketAddress()).syncUninterruptibly().channel();
            String bound = HostPort.of((InetSocketAddress) server.localAddress()).toString();
            holder[0] = new TcpTransport(bound, settings, group, server);
            return holder[0];
        } catch (Exception e) { // Netty rethrows the socket's checked BindException unchanged
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e instanceof RuntimeException r ? r : new IllegalStateException("cannot listen on " + listen + ": " + e, e);
        }
    }

    /** {@code peer} and {@code ready}: on a connection this node opens, whom to and what to complete once requests may go. */
    private void initChannel(Channel ch, String peer, Promise<Channel> ready) {
        ch.config().setWriteBufferWaterMark(new WriteBufferWaterMark(settings.writeBufferBytes() / 2, settings.writeBufferBytes()));
        // TLS first: everything after it, the stranger's limits included, sees only decrypted bytes
        settings.tls().ifPresent(tls -> ch.pipeline().addLast(tls.handlers(peer != null)));
        var writer = new BatchWriter(counters);
        var handshake = peer == null ? Handshake.acceptor(settings.secret(), writer, settings.maxFrameBytes(), counters)
                : Handshake.opener(settings.secret(), address, ready, writer, settings.maxFrameBytes(),
                        settings.handshakePatience(), counters);
        // the writer before the flush consolidation: one batch, one MAC, for the frames of one loop turn
        ch.pipeline().addLast(writer,
                new FlushConsolidationHandler(FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true),
                new IdleStateHandler(0, 0, IDLE_SECONDS), handshake);
        if (peer == null) { // accepted: a stranger until its handshake proves it holds the secret
            ch.pipeline().addLast(strangers.guard());
        }
        ch.pipeline().addLast(new PeerHandler(peer));
    }

    @Override
    protected void send(String peer, Frame frame, Pending request) {
        Future<Channel> connection = connections.get(peer);
        if (connection == null || (connection.isDone() && !(connection.isSuccess() && connection.getNow().isActive()))) {
            connection = connect(peer);
            if (connection == null) {
                request.fail(Reason.UNREACHABLE, "cannot connect to " + peer);
                return;
            }
        }
        if (connection.isDone()) {
            write(connection.getNow(), frame, request);
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
                write((Channel) done.getNow(), frame, request);
            } else {
                request.fail(Reason.UNREACHABLE, "cannot connect to " + peer + ": " + done.cause());
            }
        });
    }

    private Future<Channel> connect(String peer) {
        InetSocketAddress remote;
        try {
            remote = HostPort.parse(peer).socketAddress();
        } catch (IllegalArgumentException e) {
            return null;
        }
        Promise<Channel> ready = executor().newPromise();
        new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) settings.connectTimeout().toMillis())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        TcpTransport.this.initChannel(ch, peer, ready);
                    }
                })
                .connect(remote).addListener(connected -> {
                    if (!connected.isSuccess()) {
                        ready.tryFailure(connected.cause());
                    }
                });
        connections.put(peer, ready);
        ready.addListener(done -> {
            if (!done.isSuccess()) {
                connections.remove(peer, ready);
            }
        });
        return ready;
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
                Future<Channel> current = connections.get(peer);
                if (current != null && current.getNow() == ctx.channel()) {
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
            Throwable refusal = cause instanceof DecoderException ? cause.getCause() : cause;
            if (refusal instanceof BadFrameException bad) {
                refused(ctx, bad);
            }
            ctx.close();
        }

        private void refused(ChannelHandlerContext ctx, BadFrameException bad) {
            if (counters.get(bad.counter()) == 0) { // the first of each kind only: a scanner would flood the log
                LOG.log(System.Logger.Level.WARNING, "overlay: closed the connection {0} {1}: {2}; further ones are"
                        + " only counted in " + bad.counter(), peer == null ? "from" : "to",
                        peer == null ? ctx.channel().remoteAddress() : peer, bad.getMessage());
            }
            counters.increment(bad.counter());
        }
    }

    @Override
    public Map<String, Long> metrics() {
        Map<String, Long> metrics = super.metrics();
        for (String name : List.of(HANDSHAKES, HANDSHAKES_REFUSED, BATCHES_SENT, BATCHES_RECEIVED)) {
            metrics.putIfAbsent(name, 0L);
        }
        return metrics;
    }

    @Override
    public void close() {
        if (isClosed()) {
            return;
        }
        closePending();
        server.close();
        // a copy: closing a channel removes it from connections at once (ConcurrentModificationException)
        // connections still in their handshake close with the event loop
        executor().execute(() -> List.copyOf(connections.values()).stream().filter(Future::isSuccess)
                .forEach(c -> c.getNow().close()));
        var stopped = group.shutdownGracefully(0, 500, TimeUnit.MILLISECONDS);
        if (!executor().inEventLoop()) {
            stopped.awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
    }
}
