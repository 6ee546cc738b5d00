package org.p2psip.front;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.handler.ssl.SslContext;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.p2psip.config.Config;
import org.p2psip.front.calls.ExecutorTimers;
import org.p2psip.front.calls.FrontState;
import org.p2psip.front.calls.KeptCalls;
import org.p2psip.front.calls.FrontLoad;
import org.p2psip.front.calls.StateSplit;
import org.p2psip.front.flows.Connections;
import org.p2psip.front.flows.StreamPipeline;
import org.p2psip.front.flows.TlsServerContext;
import org.p2psip.front.nodes.AffinityTable;
import org.p2psip.front.nodes.Node;
import org.p2psip.front.nodes.Nodes;
import org.p2psip.front.policies.Policies;
import org.p2psip.front.policies.Policy;
import org.p2psip.front.relay.Forwarder;
import org.p2psip.front.relay.Inbound;
import org.p2psip.front.relay.Transactions;
import org.p2psip.front.status.FrontStats;
import org.p2psip.front.status.Readings;
import org.p2psip.front.wire.Addresses;
import org.p2psip.front.wire.Backlog;
import org.p2psip.front.wire.DatagramBatch;
import org.p2psip.front.wire.Listeners;
import org.p2psip.front.wire.Destination;
import org.p2psip.front.wire.SocketQueue;
import org.p2psip.front.wire.SocketLayer;

/**
 * A running front: one UDP socket and one TCP listener on the same address, a TLS listener on the
 * same IP address if configured, Netty event loops, and the periodic prober. Requests reach the
 * nodes over UDP from the front's own socket, so the nodes' answers come back to it. Thread-safe; {@link #close} may be called from any thread.
 */
public final class Front implements AutoCloseable, Readings {

    private static final Logger LOG = System.getLogger(Front.class.getName());
    /**
     * Pending connections a listener queues (capped by net.core.somaxconn): tens of thousands of
     * phones reconnecting at once after a restart must not be refused by a queue of 128.
     */
    private static final int BACKLOG = 4096;

    private final EventLoopGroup group;
    private final EventLoopGroup udpGroup;
    private final Channel udp;
    private final Channel innerUdp;
    private final Channel tcp;
    private final Channel tls;
    private final ScheduledFuture<?> probing;
    /** Reads the nodes file (--nodes-file) off the event loops; null without one. */
    private final ScheduledExecutorService nodesFile;
    private final InetSocketAddress address;
    private final Nodes nodes;
    private final FrontStats stats;
    private final AffinityTable affinity;
    private final Transactions transactions;
    private final Connections connections;
    private final StateSplit split;
    private final KeptCalls kept;

    private Front(EventLoopGroup group, EventLoopGroup udpGroup, Channel udp, Channel innerUdp, Channel tcp, Channel tls, ScheduledFuture<?> probing,
            ScheduledExecutorService nodesFile, InetSocketAddress address, Nodes nodes, FrontStats stats, AffinityTable affinity,
            Transactions transactions, Connections connections, StateSplit split, KeptCalls kept) {
        this.split = split;
        this.kept = kept;
        this.group = group;
        this.udpGroup = udpGroup;
        this.probing = probing;
        this.nodesFile = nodesFile;
        this.udp = udp;
        this.innerUdp = innerUdp;
        this.tcp = tcp;
        this.tls = tls;
        this.address = address;
        this.nodes = nodes;
        this.stats = stats;
        this.affinity = affinity;
        this.transactions = transactions;
        this.connections = connections;
    }

    /**
     * Binds and starts probing. Blocks the caller (never an event loop) only while binding. A TLS
     * key store that cannot be read is an IllegalArgumentException before anything is bound.
     */
    public static Front start(Config config) throws InterruptedException {
        InetSocketAddress listen = Addresses.parse(config.get(FrontOptions.LISTEN));
        if (listen.getAddress().isAnyLocalAddress()) {
            throw new IllegalArgumentException("the front listens on one IP address, written in its Via; not "
                    + listen.getAddress().getHostAddress());
        }
        int tlsPort = config.get(FrontOptions.TLS_PORT);
        SslContext tlsContext = tlsPort == 0 ? null : tlsContext(config);
        var nodes = new Nodes(Addresses.parseList(config.get(FrontOptions.NODES)));
        FrontState state = FrontState.parse(config.get(FrontOptions.STATE));
        StateSplit split = state == FrontState.STATELESS ? null : new StateSplit(state.initialFraction());
        Policy policy = Policies.named(config.get(FrontOptions.POLICY), config.get(FrontOptions.INVITE_WEIGHT));
        int maxMessage = config.get(FrontOptions.MAX_MESSAGE);
        var stats = new FrontStats();
        var affinity = new AffinityTable(config.get(FrontOptions.AFFINITY_TTL).toNanos(),
                config.get(FrontOptions.AFFINITY_MAX));
        var transactions = new Transactions(config.get(FrontOptions.TRANSACTIONS_MAX));
        var connections = new Connections();
        var outlet = new SocketOutlet(connections, stats);
        SocketLayer transport = SocketLayer.best();
        EventLoopGroup group = transport.group(config.get(FrontOptions.THREADS));
        // The UDP sockets get a loop of their own: tens of thousands of stream clients connecting
        // at once kept the shared loops busy for seconds (the JIT still cold), the nodes' answers
        // and probe answers waited unread behind them, and the front took both nodes for dead.
        EventLoopGroup udpGroup = transport.group(1);
        boolean started = false;
        try {
            boolean reusePort = config.get(FrontOptions.REUSE_PORT);
            Channel udp = bindUdp(transport, udpGroup, maxMessage, listen, reusePort);
            var listening = (InetSocketAddress) udp.localAddress();
            String innerOption = config.get(FrontOptions.INNER);
            Channel innerUdp = innerOption.isBlank() ? udp
                    : bindUdp(transport, udpGroup, maxMessage, Addresses.parse(innerOption), false);
            var self = (InetSocketAddress) innerUdp.localAddress();
            var batch = new DatagramBatch(udp);
            var innerBatch = innerUdp == udp ? batch : new DatagramBatch(innerUdp);
            outlet.udp = batch;
            outlet.innerUdp = innerBatch;
            var listeners = new Listeners(listening, tlsPort, self);
            // The kept calls live on the UDP loop: their messages and their timers on one thread, no locks.
            var kept = new KeptCalls(listeners, outlet, new ExecutorTimers(udp.eventLoop()), udp.eventLoop(), stats,
                    nodes, config.get(FrontOptions.RETRY_AFTER), config.get(FrontOptions.BRANCH_TIMEOUT).toMillis(),
                    config.get(FrontOptions.INVITE_TIMEOUT).toMillis(), config.get(FrontOptions.TRANSACTIONS_MAX));
            var queue = SocketQueue.of(udp);
            var backlog = Backlog.of(queue);
            LOG.log(Level.INFO, queue == SocketQueue.UNKNOWN ? "overload: judged by the UDP loop's busy time alone (its socket's queue is not readable here)"
                    : "overload: judged by the UDP loop's busy time and its socket's queue (buffer " + queue.capacity() + " bytes)");
            var forwarder = new Forwarder(listeners, nodes, policy, affinity,
                    transactions, outlet, stats, udp.eventLoop(), kept, split, backlog);
            var inbound = new Inbound(forwarder, stats);
            udp.pipeline().addLast(new UdpHandler(inbound, maxMessage, batch, backlog));
            if (innerUdp != udp) {
                innerUdp.pipeline().addLast(new UdpHandler(inbound, maxMessage, innerBatch, backlog));
            }
            Channel tcp = listen(transport, group, listening, reusePort,
                    new StreamPipeline(null, inbound, connections, maxMessage));
            Channel tls = tlsContext == null ? null : listen(transport, group,
                    new InetSocketAddress(listening.getAddress(), tlsPort), reusePort,
                    new StreamPipeline(tlsContext, inbound, connections, maxMessage));
            var prober = new Prober(self, nodes, forwarder, transactions, affinity, outlet, stats, kept,
                    state == FrontState.DYNAMIC ? split : null, new FrontLoad(backlog::busyNanos),
                    config.get(FrontOptions.PROBE_TIMEOUT).toNanos(),
                    config.get(FrontOptions.TRANSACTION_TIMEOUT).toNanos(),
                    config.get(FrontOptions.INVITE_TIMEOUT).toNanos());
            long interval = config.get(FrontOptions.PROBE_INTERVAL).toNanos();
            ScheduledFuture<?> probing = udp.eventLoop()
                    .scheduleAtFixedRate(() -> safely(prober), 0, interval, TimeUnit.NANOSECONDS);
            ScheduledExecutorService nodesFile = watch(config.get(FrontOptions.NODES_FILE), nodes, interval);
            LOG.log(Level.INFO, "front on {0} (UDP, TCP{1}{2}), inner {3}, policy {4}, state {5}, nodes {6}", listening,
                    tls == null ? "" : ", TLS on port " + tlsPort, reusePort ? ", shared by SO_REUSEPORT" : "", self,
                    config.get(FrontOptions.POLICY), state, nodes.all());
            started = true;
            return new Front(group, udpGroup, udp, innerUdp, tcp, tls, probing, nodesFile, listening, nodes, stats,
                    affinity, transactions, connections, split, kept);
        } finally {
            if (!started) {
                // also when a bind fails: sync() rethrows the BindException without declaring it
                group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
                udpGroup.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            }
        }
    }

    /** A stream listener (TCP, or TLS with its context in the pipeline) bound at {@code address}. */
    private static Channel listen(SocketLayer transport, EventLoopGroup group, InetSocketAddress address,
            boolean reusePort, StreamPipeline pipeline) throws InterruptedException {
        var bootstrap = new ServerBootstrap().group(group).channel(transport.serverChannel()).childHandler(pipeline)
                .option(ChannelOption.SO_BACKLOG, BACKLOG);
        return (reusePort ? transport.reusePort(bootstrap) : bootstrap).bind(address).sync().channel();
    }

    /** A UDP socket bound at {@code address}; its handler is added once it is bound (it needs the address). */
    private static Channel bindUdp(SocketLayer transport, EventLoopGroup group, int maxMessage, InetSocketAddress address,
            boolean reusePort) throws InterruptedException {
        var bootstrap = transport.udp(group, maxMessage).handler(new ChannelInitializer<DatagramChannel>() {
            @Override
            protected void initChannel(DatagramChannel ch) {
            }
        });
        return (reusePort ? transport.reusePort(bootstrap) : bootstrap).bind(address).sync().channel();
    }

    /** Reads the nodes file now and then every {@code intervalNanos} on a daemon thread; null without a file. */
    private static ScheduledExecutorService watch(String file, Nodes nodes, long intervalNanos) {
        if (file.isBlank()) {
            return null;
        }
        var reader = new NodesFile(Path.of(file), nodes);
        reader.run(); // before the first request: the file's nodes, not only --nodes
        ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor(r -> {
            var thread = new Thread(r, "front-nodes-file");
            thread.setDaemon(true);
            return thread;
        });
        watcher.scheduleWithFixedDelay(reader, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS);
        return watcher;
    }

    private static void safely(Prober prober) {
        try {
            prober.tick();
        } catch (RuntimeException e) {
            // A thrown task would be cancelled by Netty, and the front would stop probing for good.
            LOG.log(Level.WARNING, "prober tick failed", e);
        }
    }

    /**
     * The TLS listener's context from the key store the options name; IllegalArgumentException,
     * naming the flag an operator must give or the key store's defect, if there is none to read.
     */
    static SslContext tlsContext(Config config) {
        String keyStore = config.get(FrontOptions.TLS_KEY_STORE);
        if (keyStore.isBlank()) {
            throw new IllegalArgumentException(FrontOptions.flag(FrontOptions.TLS_PORT) + " needs "
                    + FrontOptions.flag(FrontOptions.TLS_KEY_STORE)
                    + " (a PKCS#12 file with the front's key and certificate)");
        }
        return TlsServerContext.load(keyStore, config.get(FrontOptions.TLS_STORE_PASSWORD));
    }

    /** The address it listens on (the bound port if the option said 0). */
    @Override
    public InetSocketAddress address() {
        return address;
    }

    /** The address of its TLS listener, or null if it has none. */
    public InetSocketAddress tlsAddress() {
        return tls == null ? null : (InetSocketAddress) tls.localAddress();
    }

    @Override
    public FrontStats stats() {
        return stats;
    }

    /** The nodes, in the order configured. */
    @Override
    public List<Node> nodes() {
        return nodes.all();
    }

    /** Call-IDs remembered now. */
    @Override
    public int affinityEntries() {
        return affinity.size();
    }

    /** Clients' TCP and TLS connections open now. */
    @Override
    public int openConnections() {
        return connections.size();
    }

    /** The share of new calls whose state the front keeps now: 0 stateless, 1 stateful. */
    @Override
    public double stateFraction() {
        return split == null ? 0 : split.fraction();
    }

    /** Calls and in-dialog requests whose state the front keeps now. */
    @Override
    public int keptEntries() {
        return kept.size();
    }

    /** Transactions forwarded and not yet finished. */
    public int openTransactions() {
        return transactions.size();
    }

    @Override
    public void close() {
        probing.cancel(false);
        if (nodesFile != null) {
            nodesFile.shutdownNow();
        }
        udp.close().awaitUninterruptibly();
        innerUdp.close().awaitUninterruptibly();
        tcp.close().awaitUninterruptibly();
        if (tls != null) {
            tls.close().awaitUninterruptibly();
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
        udpGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    /** Writes to the UDP socket and the clients' TCP and TLS connections; never waits. */
    private static final class SocketOutlet implements Destination {
        private final Connections connections;
        private final FrontStats stats;
        private volatile DatagramBatch udp;
        /** The socket the nodes are talked to from: {@link #udp} unless an inner address is configured. */
        private volatile DatagramBatch innerUdp;

        SocketOutlet(Connections connections, FrontStats stats) {
            this.connections = connections;
            this.stats = stats;
        }

        @Override
        public void toNode(Node node, byte[] message) {
            innerUdp.send(new DatagramPacket(Unpooled.wrappedBuffer(message), node.address()));
        }

        @Override
        public void toClient(long connection, InetSocketAddress address, byte[] message) {
            if (connection == UDP) {
                udp.send(new DatagramPacket(Unpooled.wrappedBuffer(message), address));
                return;
            }
            Channel channel = connections.get(connection);
            if (channel == null || !channel.isActive()) {
                stats.dropped.increment(); // the client hung up; nowhere to send its answer
                return;
            }
            channel.writeAndFlush(Unpooled.wrappedBuffer(message)); // through the SslHandler, if it has one
        }

        @Override
        public String transport(long connection) {
            if (connection == UDP) {
                return "UDP";
            }
            String transport = connections.transport(connection);
            return transport == null ? "TCP" : transport;
        }

        @Override
        public boolean open(long connection) {
            Channel channel = connection == UDP ? null : connections.get(connection);
            return channel != null && channel.isActive();
        }
    }
}
