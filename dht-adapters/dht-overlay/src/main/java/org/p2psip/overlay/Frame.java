package org.p2psip.overlay;

import java.util.Objects;

/**
 * One overlay message as it travels between nodes: a request, its response or its error. The
 * payload is opaque here; the routing layer (Chord, Bamboo) gives {@code type} its meaning.
 * Immutable, except that the payload array is shared: nobody writes to it after building a frame.
 *
 * @param kind      request, response or error
 * @param type      the routing layer's message type, 0..65535
 * @param requestId correlates a response with its request; unique per sender
 * @param sender    overlay address (host:port) of the node that sent the frame
 * @param payload   the routing layer's bytes
 */
public record Frame(Kind kind, int type, long requestId, String sender, byte[] payload) {

    /** What a frame is; its wire code is the ordinal. */
    public enum Kind {
        REQUEST, RESPONSE, ERROR;

        static Kind ofCode(int code) {
            Kind[] all = values();
            if (code < 0 || code >= all.length) {
                throw new BadFrameException("unknown frame kind " + code);
            }
            return all[code];
        }
    }

    public Frame {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(sender, "sender");
        Objects.requireNonNull(payload, "payload");
        if (type < 0 || type > 0xFFFF) {
            throw new IllegalArgumentException("message type must be 0..65535, got " + type);
        }
    }

    /** The response to this request, sent by {@code responder}. */
    public Frame response(String responder, byte[] body) {
        return new Frame(Kind.RESPONSE, type, requestId, responder, body);
    }

    /** The error answer to this request, sent by {@code responder}. */
    public Frame error(String responder, byte[] body) {
        return new Frame(Kind.ERROR, type, requestId, responder, body);
    }
}
