package org.p2psip.front;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.SocketChannel;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.p2psip.config.Config;

/**
 * A running front: one UDP socket and one TCP listener on the same address, Netty event loops,
 * and the periodic prober. Requests reach the nodes over UDP from the front's own socket, so the
 * nodes' answers come back to it. Thread-safe; {@link #close} may be called from any thread.
 */
public final class Front implements AutoCloseable {

    private static final Logger LOG = System.getLogger(Front.class.getName());

    private final EventLoopGroup group;
    private final Channel udp;
    private final Channel tcp;
    private final ScheduledFuture<?> probing;
    private final InetSocketAddress address;
    private final Nodes nodes;
    private final FrontStats stats;
    private final AffinityTable affinity;
    private final Transactions transactions;

    private Front(EventLoopGroup group, Channel udp, Channel tcp, ScheduledFuture<?> probing,
            InetSocketAddress address, Nodes nodes, FrontStats stats, AffinityTable affinity,
            Transactions transactions) {
        this.group = group;
        this.probing = probing;
        this.udp = udp;
        this.tcp = tcp;
        this.address = address;
        this.nodes = nodes;
        this.stats = stats;
        this.affinity = affinity;
        this.transactions = transactions;
    }

    /** Binds and starts probing. Blocks the caller (never an event loop) only while binding. */
    public static Front start(Config config) throws InterruptedException {
        InetSocketAddress listen = Addresses.parse(config.get(FrontOptions.LISTEN));
        if (listen.getAddress().isAnyLocalAddress()) {
            throw new IllegalArgumentException("the front listens on one IP address, written in its Via; not "
                    + listen.getAddress().getHostAddress());
        }
        var nodes = new Nodes(Addresses.parseList(config.get(FrontOptions.NODES)));
        Policy policy = Policies.named(config.get(FrontOptions.POLICY), config.get(FrontOptions.INVITE_WEIGHT));
        int maxMessage = config.get(FrontOptions.MAX_MESSAGE);
        var stats = new FrontStats();
        var affinity = new AffinityTable(config.get(FrontOptions.AFFINITY_TTL).toNanos(),
                config.get(FrontOptions.AFFINITY_MAX));
        var transactions = new Transactions(config.get(FrontOptions.TRANSACTIONS_MAX));
        var connections = new Connections();
        var outlet = new SocketOutlet(connections, stats);
        Transport transport = Transport.best();
        EventLoopGroup group = transport.group(config.get(FrontOptions.THREADS));
        try {
            Channel udp = transport.udp(group, maxMessage)
                    .handler(new ChannelInitializer<DatagramChannel>() {
                        @Override
                        protected void initChannel(DatagramChannel ch) {
                            // added once bound, below: the handler needs the bound address
                        }
                    })
                    .bind(listen).sync().channel();
            var self = (InetSocketAddress) udp.localAddress();
            var batch = new DatagramBatch(udp);
            outlet.udp = batch;
            var forwarder = new Forwarder(self, nodes, policy, affinity, transactions, outlet, stats,
                    config.get(FrontOptions.RETRY_AFTER));
            var inbound = new Inbound(forwarder, stats);
            udp.pipeline().addLast(new UdpHandler(inbound, maxMessage, batch));
            Channel tcp = new ServerBootstrap().group(group).channel(transport.serverChannel())
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new SipStreamFramer(maxMessage), new TcpHandler(inbound, connections));
                        }
                    })
                    .bind(self).sync().channel();
            var prober = new Prober(self, nodes, forwarder, transactions, affinity, outlet, stats,
                    config.get(FrontOptions.PROBE_TIMEOUT).toNanos(),
                    config.get(FrontOptions.TRANSACTION_TIMEOUT).toNanos(),
                    config.get(FrontOptions.INVITE_TIMEOUT).toNanos());
            long interval = config.get(FrontOptions.PROBE_INTERVAL).toNanos();
            ScheduledFuture<?> probing = udp.eventLoop()
                    .scheduleAtFixedRate(() -> safely(prober), 0, interval, TimeUnit.NANOSECONDS);
            LOG.log(Level.INFO, "front on {0} (UDP, TCP), policy {1}, nodes {2}", self,
                    config.get(FrontOptions.POLICY), nodes.all());
            return new Front(group, udp, tcp, probing, self, nodes, stats, affinity, transactions);
        } catch (InterruptedException | RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e;
        }
    }

    private static void safely(Prober prober) {
        try {
            prober.tick();
        } catch (RuntimeException e) {
            // A thrown task would be cancelled by Netty, and the front would stop probing for good.
            LOG.log(Level.WARNING, "prober tick failed", e);
        }
    }

    /** The address it listens on (the bound port if the option said 0). */
    public InetSocketAddress address() {
        return address;
    }

    public FrontStats stats() {
        return stats;
    }

    /** The nodes, in the order configured. */
    public List<Node> nodes() {
        return nodes.all();
    }

    /** Call-IDs remembered now. */
    public int affinityEntries() {
        return affinity.size();
    }

    /** Transactions forwarded and not yet finished. */
    public int openTransactions() {
        return transactions.size();
    }

    @Override
    public void close() {
        probing.cancel(false);
        udp.close().awaitUninterruptibly();
        tcp.close().awaitUninterruptibly();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    /** Writes to the UDP socket and the clients' TCP connections; never waits. */
    private static final class SocketOutlet implements Outlet {
        private final Connections connections;
        private final FrontStats stats;
        private volatile DatagramBatch udp;

        SocketOutlet(Connections connections, FrontStats stats) {
            this.connections = connections;
            this.stats = stats;
        }

        @Override
        public void toNode(Node node, byte[] message) {
            udp.send(new DatagramPacket(Unpooled.wrappedBuffer(message), node.address()));
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
            channel.writeAndFlush(Unpooled.wrappedBuffer(message));
        }
    }
}
