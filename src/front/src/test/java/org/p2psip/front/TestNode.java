package org.p2psip.front;

import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import java.net.InetSocketAddress;
import java.text.ParseException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.p2psip.front.wire.SipParser;
import org.p2psip.front.wire.ViaPath;
import org.p2psip.lazysip.ToTag;

/**
 * A small SIP responder standing in for a node: on loopback UDP, parses with the front's parser,
 * records every request but probes, and answers 200 unless told to keep quiet for some methods or
 * to play dead (then it answers nothing, probes included).
 */
final class TestNode implements AutoCloseable {

    private final EventLoopGroup group = new NioEventLoopGroup(1);
    private final Channel channel;
    final List<SIPRequest> received = new CopyOnWriteArrayList<>();
    /** Answers to the requests it sent itself ({@link #send}). */
    final List<SIPResponse> answers = new CopyOnWriteArrayList<>();
    final Set<String> silentFor = ConcurrentHashMap.newKeySet();
    volatile boolean dead;
    /** The status its probes are answered with: 503 plays a node that is starting. */
    volatile int probeStatus = 200;

    TestNode() throws InterruptedException {
        channel = new Bootstrap().group(group).channel(NioDatagramChannel.class)
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(65_536))
                .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) throws ParseException {
                        SIPMessage message = SipParser.parse(ByteBufUtil.getBytes(packet.content()), true);
                        if (!dead && message instanceof SIPResponse response) {
                            answers.add(response);
                        }
                        if (dead || !(message instanceof SIPRequest request)) {
                            return;
                        }
                        boolean probe = request.getCallId().getCallId().startsWith("p2psip-probe-");
                        if (!probe) {
                            received.add(request);
                        }
                        if (request.getMethod().equals("ACK") || silentFor.contains(request.getMethod())) {
                            return;
                        }
                        answer(request, probe ? probeStatus : 200);
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    /** Answers a request it received (also one it was silent for, and also when playing dead: a late answer). */
    void answer(SIPRequest request, int status) throws ParseException {
        SIPResponse response = request.createResponse(status);
        if (response.getToTag() == null) {
            response.getTo().setTag("node");
        }
        InetSocketAddress to = ViaPath.responseAddress(request.getTopmostVia());
        channel.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(response.encodeAsBytes("UDP")), to));
    }

    /** Sends a request of its own (as a node proxying to a client), from its socket. */
    void send(String request, InetSocketAddress to) {
        channel.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(
                request.getBytes(java.nio.charset.StandardCharsets.UTF_8)), to));
    }

    String address() {
        return "127.0.0.1:" + ((InetSocketAddress) channel.localAddress()).getPort();
    }

    /** The requests received with this Call-ID, in order. */
    List<SIPRequest> withCallId(String callId) {
        return received.stream().filter(r -> r.getCallId().getCallId().equals(callId)).toList();
    }

    @Override
    public void close() {
        channel.close().awaitUninterruptibly();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).awaitUninterruptibly();
    }
}
