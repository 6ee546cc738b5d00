package org.p2psip.dht.bryan;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The bodies of {@code DHT-Op: batch}: several routed operations for one peer in one REGISTER
 * (Content-Type {@value #OPS_TYPE}), and its 200's answers to each, in the same order
 * (Content-Type {@value #ANSWERS_TYPE}). Strings are Java's modified UTF-8 with a u16 length.
 * <pre>
 * ops     = count:u16 op*count
 * op      = dht-op:utf (a DHT-Op value: get, put or remove) content-type:utf body:u32-length-prefixed
 * answers = count:u16 answer*count
 * answer  = status:u16 reason:utf contact:utf (a peer URI for a 302, else empty) content-type:utf
 *           body:u32-length-prefixed
 * </pre>
 */
final class OpsBody {

    static final String OPS_TYPE = "application/vnd.p2psip.ops";
    static final String ANSWERS_TYPE = "application/vnd.p2psip.answers";

    private OpsBody() {
    }

    /** One operation of a batch, as its own REGISTER would carry it. */
    record Op(OpHeader op, String contentType, byte[] body) {
    }

    /** One operation's answer, as its own 200, 302, 412 or 480 would carry it. */
    record Reply(int status, String reason, String contact, String contentType, byte[] body) {
    }

    static byte[] encodeOps(List<Op> ops) {
        return write(ops.size(), out -> {
            for (Op op : ops) {
                out.writeUTF(op.op().print());
                out.writeUTF(op.contentType());
                writeBytes(out, op.body());
            }
        });
    }

    /** The operations; IllegalArgumentException (MalformedHeaderException for a bad DHT-Op) if any is bad. */
    static List<Op> decodeOps(byte[] body) {
        return read(body, in -> {
            OpHeader op = OpHeader.parse(in.readUTF());
            if (!op.op().batched()) {
                throw new IllegalArgumentException(op.op().name().toLowerCase(java.util.Locale.ROOT)
                        + " cannot be part of a batch");
            }
            return new Op(op, in.readUTF(), readBytes(in));
        });
    }

    static byte[] encodeReplies(List<Reply> replies) {
        return write(replies.size(), out -> {
            for (Reply r : replies) {
                out.writeShort(r.status());
                out.writeUTF(r.reason());
                out.writeUTF(r.contact());
                out.writeUTF(r.contentType());
                writeBytes(out, r.body());
            }
        });
    }

    static List<Reply> decodeReplies(byte[] body) {
        return read(body, in -> new Reply(in.readUnsignedShort(), in.readUTF(), in.readUTF(), in.readUTF(), readBytes(in)));
    }

    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    private interface Reader<T> {
        T read(DataInputStream in) throws IOException;
    }

    private static byte[] write(int count, Writer items) {
        if (count > 0xFFFF) {
            throw new IllegalArgumentException(count + " items in one batch, at most 65535");
        }
        var bytes = new ByteArrayOutputStream();
        try (var out = new DataOutputStream(bytes)) {
            out.writeShort(count);
            items.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static <T> List<T> read(byte[] body, Reader<T> item) {
        var in = new DataInputStream(new ByteArrayInputStream(body));
        try {
            int count = in.readUnsignedShort();
            var items = new ArrayList<T>(count);
            for (int i = 0; i < count; i++) {
                items.add(item.read(in));
            }
            if (in.available() > 0) {
                throw new IllegalArgumentException(in.available() + " bytes after the last item");
            }
            return items;
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated: " + e.getMessage());
        }
    }

    private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > in.available()) {
            throw new IllegalArgumentException("a body of " + length + " bytes where " + in.available() + " are left");
        }
        return in.readNBytes(length);
    }
}
