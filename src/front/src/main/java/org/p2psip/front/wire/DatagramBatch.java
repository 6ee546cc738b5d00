package org.p2psip.front.wire;

import io.netty.channel.Channel;
import io.netty.channel.socket.DatagramPacket;

/**
 * Datagrams written while the UDP socket's read batch is handled wait for the batch's end and go
 * out in one flush, so epoll sends them with one sendmmsg rather than one sendto each. Written
 * from any other thread or moment, a datagram is flushed at once. The open flag is touched only
 * on the UDP channel's event-loop thread, so it needs no lock.
 */
public final class DatagramBatch {

    private final Channel udp;
    private boolean open;

    public DatagramBatch(Channel udp) {
        this.udp = udp;
    }

    /** A read batch began (the UDP channel's thread only). */
    public void begin() {
        open = true;
    }

    public void send(DatagramPacket packet) {
        if (udp.eventLoop().inEventLoop() && open) {
            udp.write(packet, udp.voidPromise());
        } else {
            udp.writeAndFlush(packet, udp.voidPromise());
        }
    }

    /** The read batch ended: everything it wrote goes out (the UDP channel's thread only). */
    public void end() {
        if (open) {
            open = false;
            udp.flush();
        }
    }
}
