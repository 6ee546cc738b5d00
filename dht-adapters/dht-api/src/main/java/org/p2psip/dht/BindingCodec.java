package org.p2psip.dht;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The one binary encoding of a {@link BindingSet}, shared by every backend that moves or stores
 * bindings as bytes. Big-endian; strings are a u16 byte length followed by UTF-8.
 *
 * <pre>
 * set      = format:u8 (=1)  aor:str  version:u64  retainUntil:i64  count:u16  binding*count
 * binding  = contact:str  expiresAt:i64  q:i16  callId:str  cseq:u64  pathCount:u8  path:str*pathCount
 *            instance:str  regId:i32
 * </pre>
 *
 * A decoder meeting another format byte, a truncated buffer or trailing bytes refuses the whole
 * value with {@link MalformedBindingException}: it never returns a partial set.
 */
public final class BindingCodec {

    /** The format byte written first; bump it when the layout changes and keep decoding old ones. */
    public static final int FORMAT = 1;
    static final int MAX_STRING_BYTES = 0xFFFF;
    static final int MAX_BINDINGS = 0xFFFF;
    static final int MAX_PATH = 0xFF;

    private BindingCodec() {
    }

    public static byte[] encode(BindingSet set) {
        var bytes = new ByteArrayOutputStream(64 + 160 * set.bindings().size());
        try (var out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            writeString(out, set.aor());
            out.writeLong(set.version());
            out.writeLong(set.retainUntil());
            if (set.bindings().size() > MAX_BINDINGS) {
                throw new IllegalArgumentException("more than " + MAX_BINDINGS + " bindings for " + set.aor());
            }
            out.writeShort(set.bindings().size());
            for (Binding b : set.bindings()) {
                writeBinding(out, b);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
        }
        return bytes.toByteArray();
    }

    public static BindingSet decode(byte[] bytes) {
        var in = new DataInputStream(new java.io.ByteArrayInputStream(bytes));
        try {
            int format = in.readUnsignedByte();
            if (format != FORMAT) {
                throw new MalformedBindingException("unknown binding format " + format + ", this node reads " + FORMAT);
            }
            String aor = readString(in);
            long version = in.readLong();
            long retainUntil = in.readLong();
            int count = in.readUnsignedShort();
            List<Binding> bindings = new ArrayList<>(Math.min(count, 64));
            for (int i = 0; i < count; i++) {
                bindings.add(readBinding(in, aor));
            }
            if (in.available() > 0) {
                throw new MalformedBindingException(in.available() + " bytes after the binding set of " + aor);
            }
            return new BindingSet(aor, version, retainUntil, bindings);
        } catch (EOFException e) {
            throw new MalformedBindingException("binding set truncated at " + bytes.length + " bytes");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (IllegalArgumentException e) {
            if (e instanceof MalformedBindingException m) {
                throw m;
            }
            throw new MalformedBindingException("invalid binding set: " + e.getMessage());
        }
    }

    private static void writeBinding(DataOutputStream out, Binding b) throws IOException {
        writeString(out, b.contact());
        out.writeLong(b.expiresAt());
        out.writeShort(b.q());
        writeString(out, b.callId());
        out.writeLong(b.cseq());
        if (b.path().size() > MAX_PATH) {
            throw new IllegalArgumentException("more than " + MAX_PATH + " Path entries in " + b.contact());
        }
        out.writeByte(b.path().size());
        for (String p : b.path()) {
            writeString(out, p);
        }
        writeString(out, b.instance());
        out.writeInt(b.regId());
    }

    private static Binding readBinding(DataInputStream in, String aor) throws IOException {
        String contact = readString(in);
        long expiresAt = in.readLong();
        int q = in.readShort();
        String callId = readString(in);
        long cseq = in.readLong();
        int pathCount = in.readUnsignedByte();
        List<String> path = new ArrayList<>(pathCount);
        for (int i = 0; i < pathCount; i++) {
            path.add(readString(in));
        }
        String instance = readString(in);
        int regId = in.readInt();
        return new Binding(aor, contact, expiresAt, q, callId, cseq, path, instance, regId);
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > MAX_STRING_BYTES) {
            throw new IllegalArgumentException("string of " + utf8.length + " bytes is longer than " + MAX_STRING_BYTES);
        }
        out.writeShort(utf8.length);
        out.write(utf8);
    }

    private static String readString(DataInputStream in) throws IOException {
        int length = in.readUnsignedShort();
        return new String(in.readNBytes(checkAvailable(in, length)), StandardCharsets.UTF_8);
    }

    private static int checkAvailable(DataInputStream in, int length) throws IOException {
        if (in.available() < length) {
            throw new EOFException();
        }
        return length;
    }
}
