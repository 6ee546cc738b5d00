package org.p2psip.front.flows;

import io.netty.buffer.ByteBuf;

/** Keep-alives (RFC 5626 §3.5.1: CRLF on streams, CRLFCRLF or a lone CRLF on datagrams). Stateless. */
public final class Keepalive {

    /** The answer to a CRLFCRLF ping on a stream. */
    static final byte[] PONG = {'\r', '\n'};

    private Keepalive() {
    }

    /** True if the readable bytes are only CR and LF (or none). */
    public static boolean isOnly(ByteBuf buf) {
        return leading(buf) == buf.readableBytes();
    }

    /** How many CR/LF bytes the readable bytes start with. */
    static int leading(ByteBuf buf) {
        int n = 0;
        int end = buf.writerIndex();
        for (int i = buf.readerIndex(); i < end; i++) {
            byte b = buf.getByte(i);
            if (b != '\r' && b != '\n') {
                break;
            }
            n++;
        }
        return n;
    }
}
