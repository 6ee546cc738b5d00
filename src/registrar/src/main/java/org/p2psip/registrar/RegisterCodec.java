package org.p2psip.registrar;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.p2psip.dht.MalformedBindingException;

/**
 * A REGISTER as a change that travels to the node storing its AOR ({@link org.p2psip.dht.Dht#update}),
 * where {@link RegistrarOwnerRules} reads it back and applies the rules. Big-endian; strings are a
 * u16 byte length followed by UTF-8; an absent number (expires) is -1.
 *
 * <pre>
 * request = format:u8 (=1)  aor:str  callId:str  cseq:u64  expires:i64  wildcard:u8
 *           contactCount:u16  contact*contactCount  pathCount:u8  path:str*pathCount
 *           supportedCount:u8  supported:str*supportedCount
 * contact = uri:str  expires:i64  q:i16  instance:str  regId:i32
 * </pre>
 *
 * The nodes of one overlay run the same rules, so only the request travels, not the rules'
 * settings. A decoder meeting another format, a truncated buffer or trailing bytes refuses the
 * whole change with {@link MalformedBindingException}.
 */
public final class RegisterCodec {

    static final int FORMAT = 1;

    private RegisterCodec() {
    }

    public static byte[] encode(RegisterRequest r) {
        var bytes = new ByteArrayOutputStream(96 + 96 * r.contacts().size());
        try (var out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            string(out, r.aor());
            string(out, r.callId());
            out.writeLong(r.cseq());
            out.writeLong(r.expires() == null ? -1 : r.expires());
            out.writeBoolean(r.wildcard());
            count(out, r.contacts().size(), 0xFFFF, "contacts");
            for (ContactSpec c : r.contacts()) {
                string(out, c.uri());
                out.writeLong(c.expires() == null ? -1 : c.expires());
                out.writeShort(c.q());
                string(out, c.instance());
                out.writeInt(c.regId());
            }
            strings(out, r.path(), "Path entries");
            strings(out, new TreeSet<>(r.supported()), "option tags");
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
        }
        return bytes.toByteArray();
    }

    public static RegisterRequest decode(byte[] bytes) {
        var in = new DataInputStream(new ByteArrayInputStream(bytes));
        try {
            int format = in.readUnsignedByte();
            if (format != FORMAT) {
                throw new MalformedBindingException("unknown change format " + format + ", this node reads " + FORMAT);
            }
            String aor = string(in);
            String callId = string(in);
            long cseq = in.readLong();
            Long expires = absentIfNegative(in.readLong());
            boolean wildcard = in.readBoolean();
            int count = in.readUnsignedShort();
            List<ContactSpec> contacts = new ArrayList<>(Math.min(count, 16));
            for (int i = 0; i < count; i++) {
                contacts.add(new ContactSpec(string(in), absentIfNegative(in.readLong()), in.readShort(), string(in),
                        in.readInt()));
            }
            List<String> path = strings(in);
            Set<String> supported = Set.copyOf(strings(in));
            if (in.available() > 0) {
                throw new MalformedBindingException(in.available() + " bytes after the change of " + aor);
            }
            return new RegisterRequest(aor, callId, cseq, expires, wildcard, contacts, path, supported);
        } catch (EOFException e) {
            throw new MalformedBindingException("change truncated at " + bytes.length + " bytes");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Long absentIfNegative(long value) {
        return value < 0 ? null : value;
    }

    private static void count(DataOutputStream out, int count, int max, String what) throws IOException {
        if (count > max) {
            throw new IllegalArgumentException("more than " + max + " " + what);
        }
        if (max > 0xFF) {
            out.writeShort(count);
        } else {
            out.writeByte(count);
        }
    }

    private static void strings(DataOutputStream out, java.util.Collection<String> values, String what) throws IOException {
        count(out, values.size(), 0xFF, what);
        for (String v : values) {
            string(out, v);
        }
    }

    private static List<String> strings(DataInputStream in) throws IOException {
        int count = in.readUnsignedByte();
        List<String> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            values.add(string(in));
        }
        return values;
    }

    private static void string(DataOutputStream out, String s) throws IOException {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > 0xFFFF) {
            throw new IllegalArgumentException("a string of " + utf8.length + " bytes");
        }
        out.writeShort(utf8.length);
        out.write(utf8);
    }

    private static String string(DataInputStream in) throws IOException {
        int length = in.readUnsignedShort();
        if (in.available() < length) {
            throw new EOFException();
        }
        return new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }
}
