package org.p2psip.front.flows;

import gov.nist.javax.sip.message.SIPMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.ByteProcessor;
import java.text.ParseException;
import java.util.List;
import org.p2psip.front.relay.StreamFrame;
import org.p2psip.front.status.FrontStats;
import org.p2psip.front.wire.SipParser;
import org.p2psip.lazysip.SipLines;

/**
 * Cuts a TCP stream into SIP messages (RFC 3261 §18.3): the head ends at the first empty line,
 * and its Content-Length says how many body bytes follow. The head's lines are read where they
 * lie ({@link SipLines}); only when that reader cannot find one Content-Length that reads does
 * JAIN-SIP parse the head, so a message of a kept call is never a JAIN-SIP object. A stream that is not SIP, or a message over the size limit, cannot be
 * resynchronised, so it fails the decoder and the connection is closed; a head that does not
 * parse is emitted first, unparsed, so that a request that is not valid SIP hears why before its
 * connection closes. Emits {@link StreamFrame}s: the parsed message with its bytes as they came.
 * One per connection, not thread-safe (Netty calls it from the connection's thread).
 */
final class SipStreamFramer extends ByteToMessageDecoder {

    private static final ByteProcessor FIND_LF = ByteProcessor.FIND_LF;

    private final int maxMessage;
    /** JAIN-SIP's parse of the head being framed, when the lazy reader could not find its length. */
    private SIPMessage head;
    /** Between a head's end and its body's: the head is read, the body not yet whole. */
    private boolean framing;
    private byte[] headBytes;
    private int headLength;
    private int bodyLength;
    private boolean failed;
    private final FrontStats stats;
    /** CR and LF bytes read between messages since the last keep-alive answered. */
    private int keepaliveBytes;

    SipStreamFramer(int maxMessage, FrontStats stats) {
        this.maxMessage = maxMessage;
        this.stats = stats;
    }

    /**
     * Skips the CR and LF bytes before a message; a CRLFCRLF among them is a client's keep-alive
     * ping, answered with one CRLF (RFC 5626 §3.5.1), so that the client sees its flow alive.
     */
    private void skipKeepalives(ChannelHandlerContext ctx, ByteBuf in) {
        int leading = Keepalive.leading(in);
        in.skipBytes(leading);
        int between = keepaliveBytes + leading;
        keepaliveBytes = in.isReadable() || between >= 4 ? 0 : between; // a ping may arrive in pieces
        if (between >= 4) {
            stats.keepalivesAnswered.increment();
            ctx.writeAndFlush(Unpooled.wrappedBuffer(Keepalive.PONG));
        }
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws ParseException {
        if (failed) {
            in.skipBytes(in.readableBytes()); // the connection is closing; what follows cannot be framed
            return;
        }
        try {
            frame(ctx, in, out);
        } catch (ParseException | TooLongFrameException e) {
            failed = true;
            in.skipBytes(in.readableBytes());
            throw e;
        }
    }

    private void frame(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws ParseException {
        while (true) {
            if (!framing) {
                skipKeepalives(ctx, in);
                int end = endOfHead(in);
                if (end < 0) {
                    if (in.readableBytes() > maxMessage) {
                        throw new TooLongFrameException("SIP head longer than " + maxMessage + " bytes");
                    }
                    return;
                }
                headLength = end - in.readerIndex();
                headBytes = ByteBufUtil.getBytes(in, in.readerIndex(), headLength);
                bodyLength = lazyLength(headBytes);
                if (bodyLength < 0) {
                    try {
                        head = SipParser.parse(headBytes, false);
                    } catch (ParseException e) {
                        out.add(new StreamFrame(null, headBytes));
                        throw e;
                    }
                    bodyLength = head.getContentLength() == null ? 0 : head.getContentLength().getContentLength();
                }
                framing = true;
                if (bodyLength < 0 || headLength + bodyLength > maxMessage) {
                    throw new TooLongFrameException("SIP message longer than " + maxMessage + " bytes");
                }
            }
            if (in.readableBytes() < headLength + bodyLength) {
                return;
            }
            in.skipBytes(headLength);
            byte[] bytes = headBytes;
            if (bodyLength > 0) {
                byte[] body = ByteBufUtil.getBytes(in, in.readerIndex(), bodyLength);
                if (head != null) {
                    head.setMessageContent(body);
                }
                in.skipBytes(bodyLength);
                bytes = java.util.Arrays.copyOf(headBytes, headLength + bodyLength);
                System.arraycopy(body, 0, bytes, headLength, bodyLength);
            }
            out.add(head == null ? StreamFrame.unparsed(bytes) : new StreamFrame(head, bytes));
            head = null;
            headBytes = null;
            framing = false;
        }
    }

    /**
     * The body's length from the head's one Content-Length (or its compact form), read where it
     * lies; -1 when it is missing, repeated, does not read or the lines do not (JAIN-SIP decides).
     */
    private int lazyLength(byte[] head) {
        SipLines lines = SipLines.of(head);
        String length = lines == null ? null : lines.single("content-length");
        return length == null ? -1 : (int) SipLines.number(length.trim(), maxMessage);
    }

    /** Index just past the empty line that ends the head, or -1 if it has not come yet. */
    private static int endOfHead(ByteBuf in) {
        int from = in.readerIndex();
        int end = in.writerIndex();
        while (from < end) {
            int lf = in.forEachByte(from, end - from, FIND_LF);
            if (lf < 0) {
                return -1;
            }
            // An empty line: LF followed by LF, or by CR LF.
            if (lf + 1 < end && in.getByte(lf + 1) == '\n') {
                return lf + 2;
            }
            if (lf + 2 < end && in.getByte(lf + 1) == '\r' && in.getByte(lf + 2) == '\n') {
                return lf + 3;
            }
            from = lf + 1;
        }
        return -1;
    }
}
