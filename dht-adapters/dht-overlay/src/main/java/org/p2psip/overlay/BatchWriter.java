package org.p2psip.overlay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import java.util.ArrayList;
import java.util.List;
import org.p2psip.dht.Counters;

/**
 * Writes the frames of one flush as one batch, with one MAC ({@link BatchMac}, the format in
 * {@link BatchReader}). It sits nearer the socket than the flush consolidation, so one flush here
 * is every frame the node wrote to the connection in one turn of its loop. A batch closes before a
 * frame that would take its frames past {@link #BATCH_BYTES}, so a larger flush is split, and a
 * frame larger than that travels alone. Bytes written by the handshake pass through unchanged,
 * after any batch begun before them. One instance per channel; it writes no frame before the
 * handshake gives it its key ({@link #start}).
 */
final class BatchWriter extends ChannelOutboundHandlerAdapter {

    /**
     * Bytes of frames (with their length prefixes) a batch gathers at most, unless one frame alone
     * is larger: the receiver holds a whole batch before checking it, so this bounds how long a
     * frame may wait behind others of its batch, while still making the MAC's cost per frame small.
     */
    static final int BATCH_BYTES = 64 * 1024;

    private final Counters counters;
    private final List<ChannelPromise> promises = new ArrayList<>();
    private BatchMac mac;
    private ByteBuf open;

    BatchWriter(Counters counters) {
        this.counters = counters;
    }

    /** From now on frames are written, under {@code mac}. */
    void start(BatchMac mac) {
        this.mac = mac;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof Frame frame)) {
            seal(ctx);
            ctx.write(msg, promise);
            return;
        }
        if (mac == null) {
            promise.tryFailure(new IllegalStateException("a frame written before the connection's handshake"));
            return;
        }
        int size = FrameCodec.size(frame);
        if (open != null && open.readableBytes() - 4 + size > BATCH_BYTES) {
            seal(ctx);
        }
        if (open == null) {
            open = ctx.alloc().buffer(4 + Math.min(size, BATCH_BYTES) + BatchMac.BYTES);
            open.writeInt(0); // its length, once the batch is complete
        }
        FrameCodec.encode(frame, open);
        if (!promise.isVoid()) {
            promises.add(promise);
        }
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        seal(ctx);
        ctx.flush();
    }

    /** Completes the open batch, if any, with its length and MAC and writes it. */
    private void seal(ChannelHandlerContext ctx) {
        if (open == null) {
            return;
        }
        ByteBuf batch = open;
        open = null;
        batch.setInt(0, batch.readableBytes() - 4 + BatchMac.BYTES);
        batch.writeBytes(mac.next(batch, batch.readerIndex(), batch.readableBytes()));
        counters.increment(TcpTransport.BATCHES_SENT);
        List<ChannelPromise> written = List.copyOf(promises);
        promises.clear();
        ctx.write(batch).addListener(done -> written.forEach(p -> {
            if (done.isSuccess()) {
                p.trySuccess();
            } else {
                p.tryFailure(done.cause());
            }
        }));
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (open != null) { // the channel closed between a write and its flush
            open.release();
            open = null;
            promises.forEach(p -> p.tryFailure(new IllegalStateException("connection closed before the flush")));
            promises.clear();
        }
    }
}
