package org.p2psip.registrar;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.p2psip.config.Config;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.MalformedBindingException;
import org.p2psip.dht.Updated;
import org.p2psip.dht.OwnerRules;

/**
 * The {@link Registrar} rules as the node storing an AOR applies them to a REGISTER another node
 * received ({@link RegisterCodec}): the set to store when the rules say Store, and the outcome as
 * the answer the backend carries back, so that the node that received the REGISTER answers the
 * client from it ({@link RegistrarService}) without applying the rules again. Thread-safe
 * (immutable).
 *
 * <p>The answer: format:u8 (1), kind:u8 (0 stored, 1 unchanged, 2 refused), and for a refusal
 * the {@link Rejection}'s name (modified UTF-8) and the Min-Expires of a 423 (i64).
 */
public final class RegistrarOwnerRules implements OwnerRules {

    static final int FORMAT = 1;
    private static final int STORED = 0;
    private static final int UNCHANGED = 1;
    private static final int REFUSED = 2;

    private final Registrar registrar;

    public RegistrarOwnerRules(Config config) {
        this.registrar = new Registrar(config);
    }

    @Override
    public Updated apply(BindingSet current, byte[] change, long now) {
        RegisterRequest request = RegisterCodec.decode(change);
        Outcome outcome = registrar.apply(request, current, now);
        if (outcome instanceof Outcome.Store store) {
            return new Updated(store.next(), true, answer(STORED, null), request.wildcard());
        }
        if (outcome instanceof Outcome.Refused refused) {
            return new Updated(current, false, answer(REFUSED, refused));
        }
        return new Updated(current, false, answer(UNCHANGED, null));
    }

    /**
     * The refusal an owner's answer says, or null when the REGISTER was stored or changed nothing
     * (answered with the record). MalformedBindingException for an answer this node cannot read.
     */
    static Outcome.Refused refusalIn(byte[] answer) {
        var in = new DataInputStream(new ByteArrayInputStream(answer));
        try {
            int format = in.readUnsignedByte();
            if (format != FORMAT) {
                throw new MalformedBindingException("unknown outcome format " + format + ", this node reads " + FORMAT);
            }
            int kind = in.readUnsignedByte();
            Outcome.Refused refused = switch (kind) {
                case STORED, UNCHANGED -> null;
                case REFUSED -> new Outcome.Refused(Rejection.valueOf(in.readUTF()), in.readLong());
                default -> throw new MalformedBindingException("unknown outcome " + kind);
            };
            if (in.available() > 0) {
                throw new MalformedBindingException(in.available() + " bytes after the outcome");
            }
            return refused;
        } catch (MalformedBindingException e) {
            throw e;
        } catch (IOException | IllegalArgumentException e) {
            throw new MalformedBindingException("the owner's outcome is unreadable: " + e);
        }
    }

    private static byte[] answer(int kind, Outcome.Refused refused) {
        var bytes = new ByteArrayOutputStream(32);
        try (var out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            out.writeByte(kind);
            if (refused != null) {
                out.writeUTF(refused.rejection().name());
                out.writeLong(refused.minExpires());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
        }
        return bytes.toByteArray();
    }
}
