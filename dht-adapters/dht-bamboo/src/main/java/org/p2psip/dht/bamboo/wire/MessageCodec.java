package org.p2psip.dht.bamboo.wire;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.bamboo.routing.NodeHandle;
import org.p2psip.dht.bamboo.storage.KeyValues;
import org.p2psip.dht.bamboo.storage.StoredValue;
import org.p2psip.dht.bamboo.storage.ValueStore;
import org.p2psip.dht.bamboo.wire.Message.*;

/**
 * The bytes of each {@link Message}, big-endian: {@code format:u8 (=1) type:u8 fields}. A handle
 * is {@code id:20 address:str}, a string {@code u16 length + UTF-8}, a byte string {@code u32
 * length + bytes}, a list {@code u32 count + items}. The README lists every type's fields. A
 * message that does not decode whole is refused with {@link MalformedMessageException}, never
 * partly read. Stateless and thread-safe.
 */
public final class MessageCodec {

    public static final int FORMAT = 1;
    static final int MAX_BYTES = 16 << 20;
    static final int MAX_ITEMS = 1 << 20;

    private MessageCodec() {
    }

    public static byte[] encode(Message m) {
        var bytes = new ByteArrayOutputStream(128);
        try (var out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            write(out, m);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    public static Message decode(byte[] bytes) {
        var in = new DataInputStream(new ByteArrayInputStream(bytes));
        try {
            int format = in.readUnsignedByte();
            if (format != FORMAT) {
                throw new MalformedMessageException("message format " + format + ", this node reads " + FORMAT);
            }
            Message m = read(in);
            if (in.available() > 0) {
                throw new MalformedMessageException(in.available() + " bytes after a " + m.getClass().getSimpleName());
            }
            return m;
        } catch (EOFException e) {
            throw new MalformedMessageException("message truncated at " + bytes.length + " bytes");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            if (e instanceof MalformedMessageException mm) {
                throw mm;
            }
            throw new MalformedMessageException("invalid message: " + e.getMessage());
        }
    }

    private static void write(DataOutputStream out, Message m) throws IOException {
        if (m instanceof Ping p) {
            out.writeByte(1);
            handle(out, p.from());
        } else if (m instanceof Pong p) {
            out.writeByte(2);
            handle(out, p.from());
        } else if (m instanceof LeafSetExchange x) {
            out.writeByte(3);
            handle(out, x.from());
            handles(out, x.members());
        } else if (m instanceof TableRequest t) {
            out.writeByte(4);
            handle(out, t.from());
            out.writeInt(t.row());
        } else if (m instanceof Handles h) {
            out.writeByte(5);
            handles(out, h.handles());
        } else if (m instanceof Lookup l) {
            out.writeByte(6);
            handle(out, l.from());
            id(out, l.key());
            ids(out, l.avoid());
        } else if (m instanceof Hop h) {
            out.writeByte(7);
            hop(out, h);
        } else if (m instanceof Put p) {
            out.writeByte(8);
            id(out, p.key());
            bytes(out, p.value());
            out.writeLong(p.ttlMillis());
            bytes(out, p.secretHash());
        } else if (m instanceof Get g) {
            out.writeByte(9);
            id(out, g.key());
            out.writeInt(g.max());
            bytes(out, g.placemark());
            ids(out, g.avoid());
        } else if (m instanceof Remove r) {
            out.writeByte(10);
            id(out, r.key());
            bytes(out, r.valueHash());
            bytes(out, r.secret());
        } else if (m instanceof Swap s) {
            out.writeByte(11);
            id(out, s.key());
            out.writeLong(s.expected());
            bytes(out, s.set());
            bytes(out, s.secret());
        } else if (m instanceof Apply a) {
            out.writeByte(20);
            id(out, a.key());
            string(out, a.aor());
            bytes(out, a.change());
            bytes(out, a.secret());
        } else if (m instanceof Forget f) {
            out.writeByte(12);
            id(out, f.key());
            out.writeLong(f.version());
            bytes(out, f.secret());
        } else if (m instanceof Store s) {
            out.writeByte(13);
            handle(out, s.from());
            copies(out, s.copies());
        } else if (m instanceof Done) {
            out.writeByte(14);
        } else if (m instanceof Outcome o) {
            out.writeByte(15);
            out.writeBoolean(o.ok());
            bytes(out, o.current());
        } else if (m instanceof Applied a) {
            out.writeByte(21);
            out.writeBoolean(a.written());
            bytes(out, a.current());
            bytes(out, a.answer());
        } else if (m instanceof Values v) {
            out.writeByte(16);
            found(out, v.found());
            bytes(out, v.placemark());
        } else if (m instanceof Removed r) {
            out.writeByte(17);
            out.writeByte(r.removal().ordinal());
        } else if (m instanceof Redirect r) {
            out.writeByte(18);
            hop(out, r.next());
        } else if (m instanceof Failure f) {
            out.writeByte(19);
            out.writeByte(f.reason().ordinal());
            string(out, f.text());
        } else {
            throw new IllegalArgumentException("no encoding for " + m);
        }
    }

    private static Message read(DataInputStream in) throws IOException {
        int type = in.readUnsignedByte();
        return switch (type) {
            case 1 -> new Ping(handle(in));
            case 2 -> new Pong(handle(in));
            case 3 -> new LeafSetExchange(handle(in), handles(in));
            case 4 -> new TableRequest(handle(in), in.readInt());
            case 5 -> new Handles(handles(in));
            case 6 -> new Lookup(handle(in), id(in), ids(in));
            case 7 -> hop(in);
            case 8 -> new Put(id(in), bytes(in), in.readLong(), bytes(in));
            case 9 -> new Get(id(in), in.readInt(), bytes(in), ids(in));
            case 10 -> new Remove(id(in), bytes(in), bytes(in));
            case 11 -> new Swap(id(in), in.readLong(), bytes(in), bytes(in));
            case 12 -> new Forget(id(in), in.readLong(), bytes(in));
            case 13 -> new Store(handle(in), copies(in));
            case 14 -> new Done();
            case 15 -> new Outcome(in.readBoolean(), bytes(in));
            case 16 -> new Values(found(in), bytes(in));
            case 17 -> new Removed(ValueStore.Removal.values()[in.readUnsignedByte()]);
            case 18 -> new Redirect(hop(in));
            case 20 -> new Apply(id(in), string(in), bytes(in), bytes(in));
            case 21 -> new Applied(in.readBoolean(), bytes(in), bytes(in));
            case 19 -> new Failure(DhtException.Reason.values()[in.readUnsignedByte()], string(in));
            default -> throw new MalformedMessageException("unknown message type " + type);
        };
    }

    private static void hop(DataOutputStream out, Hop h) throws IOException {
        handle(out, h.node());
        out.writeBoolean(h.last());
    }

    private static Hop hop(DataInputStream in) throws IOException {
        return new Hop(handle(in), in.readBoolean());
    }

    private static void copies(DataOutputStream out, List<KeyValues> copies) throws IOException {
        out.writeInt(copies.size());
        for (KeyValues kv : copies) {
            id(out, kv.key());
            out.writeInt(kv.values().size());
            for (StoredValue v : kv.values()) {
                bytes(out, v.value());
                out.writeLong(v.expiresAt());
                out.writeLong(v.stamp());
                bytes(out, v.secretHash());
                out.writeBoolean(v.removed());
            }
        }
    }

    private static List<KeyValues> copies(DataInputStream in) throws IOException {
        int count = count(in);
        List<KeyValues> out = new ArrayList<>(Math.min(count, 1024));
        for (int i = 0; i < count; i++) {
            Id key = id(in);
            int n = count(in);
            List<StoredValue> values = new ArrayList<>(Math.min(n, 64));
            for (int j = 0; j < n; j++) {
                values.add(new StoredValue(bytes(in), in.readLong(), in.readLong(), bytes(in), in.readBoolean()));
            }
            out.add(new KeyValues(key, values));
        }
        return out;
    }

    private static void found(DataOutputStream out, List<ValueStore.Found> found) throws IOException {
        out.writeInt(found.size());
        for (ValueStore.Found f : found) {
            bytes(out, f.value());
            out.writeLong(f.remaining().toMillis());
        }
    }

    private static List<ValueStore.Found> found(DataInputStream in) throws IOException {
        int count = count(in);
        List<ValueStore.Found> out = new ArrayList<>(Math.min(count, 64));
        for (int i = 0; i < count; i++) {
            out.add(new ValueStore.Found(bytes(in), Duration.ofMillis(in.readLong())));
        }
        return out;
    }

    private static void handles(DataOutputStream out, List<NodeHandle> handles) throws IOException {
        out.writeInt(handles.size());
        for (NodeHandle h : handles) {
            handle(out, h);
        }
    }

    private static List<NodeHandle> handles(DataInputStream in) throws IOException {
        int count = count(in);
        List<NodeHandle> out = new ArrayList<>(Math.min(count, 256));
        for (int i = 0; i < count; i++) {
            out.add(handle(in));
        }
        return out;
    }

    private static void ids(DataOutputStream out, List<Id> ids) throws IOException {
        out.writeInt(ids.size());
        for (Id id : ids) {
            id(out, id);
        }
    }

    private static List<Id> ids(DataInputStream in) throws IOException {
        int count = count(in);
        List<Id> out = new ArrayList<>(Math.min(count, 256));
        for (int i = 0; i < count; i++) {
            out.add(id(in));
        }
        return out;
    }

    private static void handle(DataOutputStream out, NodeHandle h) throws IOException {
        id(out, h.id());
        string(out, h.address());
    }

    private static NodeHandle handle(DataInputStream in) throws IOException {
        return new NodeHandle(id(in), string(in));
    }

    private static void id(DataOutputStream out, Id id) throws IOException {
        out.write(id.bytes());
    }

    private static Id id(DataInputStream in) throws IOException {
        return Id.of(in.readNBytes(available(in, Id.BYTES)));
    }

    private static void bytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    private static byte[] bytes(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > MAX_BYTES) {
            throw new MalformedMessageException("byte string of " + length + " bytes");
        }
        return in.readNBytes(available(in, length));
    }

    private static void string(DataOutputStream out, String s) throws IOException {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        out.writeShort(Math.min(utf8.length, 0xFFFF));
        out.write(utf8, 0, Math.min(utf8.length, 0xFFFF));
    }

    private static String string(DataInputStream in) throws IOException {
        int length = in.readUnsignedShort();
        return new String(in.readNBytes(available(in, length)), StandardCharsets.UTF_8);
    }

    private static int count(DataInputStream in) throws IOException {
        int count = in.readInt();
        if (count < 0 || count > MAX_ITEMS) {
            throw new MalformedMessageException("list of " + count + " items");
        }
        return count;
    }

    private static int available(DataInputStream in, int length) throws IOException {
        if (in.available() < length) {
            throw new EOFException();
        }
        return length;
    }
}
