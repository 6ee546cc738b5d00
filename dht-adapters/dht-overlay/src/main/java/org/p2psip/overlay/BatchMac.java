package org.p2psip.overlay;

import io.netty.buffer.ByteBuf;
import javax.crypto.Mac;

/**
 * The MAC of one direction of one connection:
 *
 * <pre>
 * mac = HMAC-SHA256(the direction's key, sequence:u64 || the batch's length prefix and frames)
 * </pre>
 *
 * where {@code sequence} is 0 for the direction's first batch and one more for each after it.
 * Both ends count the batches of the direction, so the number never travels: a batch sent again,
 * out of order, after a dropped one, or spliced in from another connection (another key) is
 * checked against other inputs than it was made with, and fails. Not thread-safe: one per
 * direction, used on its channel's loop.
 */
public final class BatchMac {

    public static final int BYTES = 32;

    private final Mac mac;
    private final byte[] sequenceBytes = new byte[8];
    private long sequence;

    BatchMac(Mac mac) {
        this.mac = mac;
    }

    /**
     * The MAC of the next batch of the direction, whose bytes (length prefix and frames) are the
     * {@code length} bytes of {@code buf} from {@code index}; the next call is for the batch after it.
     */
    public byte[] next(ByteBuf buf, int index, int length) {
        for (int i = 0; i < 8; i++) {
            sequenceBytes[i] = (byte) (sequence >>> (56 - 8 * i));
        }
        sequence++;
        mac.update(sequenceBytes);
        if (buf.hasArray()) {
            mac.update(buf.array(), buf.arrayOffset() + index, length);
        } else {
            mac.update(buf.nioBuffer(index, length));
        }
        return mac.doFinal();
    }
}
