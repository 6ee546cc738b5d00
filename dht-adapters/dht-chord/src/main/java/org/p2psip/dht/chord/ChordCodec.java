package org.p2psip.dht.chord;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.Members.Member;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.store.Record;
import org.p2psip.dht.ring.store.RecordCodec;

/**
 * Chord's payload encoding inside overlay frames: big-endian, strings as u16 length + UTF-8,
 * byte blobs as u32 length + bytes, a node as its 20-byte id then its address.
 */
final class ChordCodec {

    private ChordCodec() {
    }

    /** Builds one payload. Not thread-safe. */
    static final class Writer {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        private final DataOutputStream out = new DataOutputStream(bytes);

        Writer u8(int v) {
            return run(() -> out.writeByte(v));
        }

        Writer u16(int v) {
            return run(() -> out.writeShort(v));
        }

        Writer u64(long v) {
            return run(() -> out.writeLong(v));
        }

        Writer string(String s) {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            return run(() -> {
                out.writeShort(utf8.length);
                out.write(utf8);
            });
        }

        Writer blob(byte[] b) {
            return run(() -> {
                out.writeInt(b.length);
                out.write(b);
            });
        }

        Writer raw(byte[] b) {
            return run(() -> out.write(b));
        }

        Writer id(Id id) {
            return run(() -> out.write(id.bytes()));
        }

        Writer node(NodeRef node) {
            return id(node.id()).string(node.address());
        }

        Writer nodes(List<NodeRef> nodes) {
            u8(nodes.size());
            nodes.forEach(this::node);
            return this;
        }

        /** count:u16, then each member: address:str, places:u16, first:id, heartbeat:u64. */
        Writer members(List<Member> members) {
            u16(members.size());
            for (Member m : members) {
                string(m.address()).u16(m.places()).id(m.first()).u64(m.heartbeat());
            }
            return this;
        }

        /** A record: a blob in the ring's {@link RecordCodec} encoding. */
        Writer record(Record r) {
            return blob(RecordCodec.encode(r));
        }

        int size() {
            return bytes.size();
        }

        byte[] bytes() {
            return bytes.toByteArray();
        }

        private Writer run(IoAction action) {
            try {
                action.run();
            } catch (IOException e) {
                throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
            }
            return this;
        }

        private interface IoAction {
            void run() throws IOException;
        }
    }

    /** Reads one payload; a short or malformed payload raises IllegalArgumentException. Not thread-safe. */
    static final class Reader {
        private final ByteBuffer in;

        Reader(byte[] payload) {
            this.in = ByteBuffer.wrap(payload);
        }

        int u8() {
            return guard(() -> in.get() & 0xFF);
        }

        int u16() {
            return guard(() -> in.getShort() & 0xFFFF);
        }

        long u64() {
            return guard(in::getLong);
        }

        String string() {
            int length = guard(() -> in.getShort() & 0xFFFF);
            return new String(take(length), StandardCharsets.UTF_8);
        }

        byte[] blob() {
            return take(guard(in::getInt));
        }

        Id id() {
            return Id.of(take(Id.BYTES));
        }

        NodeRef node() {
            return new NodeRef(id(), string());
        }

        List<NodeRef> nodes() {
            int count = u8();
            var nodes = new ArrayList<NodeRef>(count);
            for (int i = 0; i < count; i++) {
                nodes.add(node());
            }
            return nodes;
        }

        List<Member> members() {
            int count = u16();
            var members = new ArrayList<Member>(Math.min(count, 256));
            for (int i = 0; i < count; i++) {
                members.add(new Member(string(), u16(), id(), u64()));
            }
            return members;
        }

        /** Whether the payload has bytes left: an optional field follows. */
        boolean more() {
            return in.hasRemaining();
        }

        Record record() {
            return RecordCodec.decode(blob());
        }

        private byte[] take(int length) {
            if (length < 0 || length > in.remaining()) {
                throw new IllegalArgumentException("payload truncated: " + length + " bytes wanted, " + in.remaining() + " left");
            }
            byte[] b = new byte[length];
            in.get(b);
            return b;
        }

        private static <T> T guard(java.util.function.Supplier<T> read) {
            try {
                return read.get();
            } catch (BufferUnderflowException e) {
                throw new IllegalArgumentException("payload truncated");
            }
        }
    }
}
