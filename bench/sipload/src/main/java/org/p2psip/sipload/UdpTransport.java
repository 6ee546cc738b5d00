package org.p2psip.sipload;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;

/**
 * Every phone on one UDP socket, connected to the target (only its datagrams arrive, and the
 * local address is the one toward it): each phone's Via and Contact are that socket's address.
 * Requests are retransmitted on Timer E; requests that reach the socket are not answered.
 */
final class UdpTransport implements LoadTransport {
    /** The kernel's buffers asked for, as the nodes', SIPp's and Kamailio's in the bench: bursts meet room alike. */
    private static final int SOCKET_BUFFER_BYTES = 2 * 1024 * 1024;
    private static final int DATAGRAM_BYTES = 65_535;
    private final DatagramChannel channel;
    private final Selector selector;
    private final RegisterRequest.Local local;
    private final ByteBuffer receiveBuffer = ByteBuffer.allocate(DATAGRAM_BYTES);
    private final ConnectionTally none = new ConnectionTally();

    UdpTransport(InetSocketAddress bind, InetSocketAddress target) throws IOException {
        channel = DatagramChannel.open();
        try {
            channel.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER_BYTES);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER_BYTES);
            channel.bind(bind);
            channel.connect(target);
            channel.configureBlocking(false);
            selector = Selector.open();
            channel.register(selector, SelectionKey.OP_READ);
        } catch (IOException e) {
            channel.close();
            throw e;
        }
        var address = (InetSocketAddress) channel.getLocalAddress();
        local = new RegisterRequest.Local(address.getAddress().getHostAddress(), address.getPort());
    }

    @Override
    public String name() {
        return "udp";
    }

    @Override
    public boolean retransmits() {
        return true;
    }

    @Override
    public boolean ready(Phone phone, long now) {
        if (phone.via == null) {
            phone.via = local;
            phone.contactUri = RegisterRequest.contactUri(phone.user, local, "udp");
        }
        return true;
    }

    @Override
    public void send(Phone phone, byte[] request) throws IOException {
        try {
            channel.write(ByteBuffer.wrap(request));
        } catch (PortUnreachableException e) {
            // an ICMP error for an earlier datagram (nothing listened then): Timer E sends this one again
        }
    }

    @Override
    public void finished(Phone phone, long now) {
        // one socket for all: nothing to close
    }

    @Override
    public void await(long deadlineNanos, Listener listener) throws IOException {
        LoadTransport.select(selector, deadlineNanos);
        selector.selectedKeys().clear();
        receive(listener);
    }

    private void receive(Listener listener) throws IOException {
        while (true) {
            receiveBuffer.clear();
            try {
                if (channel.receive(receiveBuffer) == null) {
                    return;
                }
            } catch (PortUnreachableException e) {
                continue; // an ICMP error for an earlier datagram: the transaction's timers deal with it
            }
            Response response = Response.parse(receiveBuffer.array(), receiveBuffer.position());
            if (response != null) {
                listener.response(response, System.nanoTime());
            }
        }
    }

    @Override
    public void wakeup() {
        selector.wakeup();
    }

    @Override
    public ConnectionTally connections() {
        return none;
    }

    @Override
    public void close() throws IOException {
        selector.close();
        channel.close();
    }
}
