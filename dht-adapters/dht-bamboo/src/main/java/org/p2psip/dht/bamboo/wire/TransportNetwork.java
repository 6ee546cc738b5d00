package org.p2psip.dht.bamboo.wire;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.p2psip.dht.Counters;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.overlay.OverlayTransport;

/**
 * Bamboo's messages over the shared overlay {@link OverlayTransport} (authenticated frames over TCP, or
 * in-process): each message is one frame of type {@link #FRAME_TYPE} whose payload is its
 * {@link MessageCodec} bytes. A payload that does not decode is counted and answered with an
 * error frame; bad frames are the transport's to refuse. One node per transport. Thread-safe.
 */
public final class TransportNetwork implements Network, AutoCloseable {

    /** The overlay frame type Bamboo's messages travel as ("Bb"). */
    public static final int FRAME_TYPE = 0x4262;
    private static final String MALFORMED = "bamboo.malformed-messages";

    private final OverlayTransport transport;
    private final Counters counters = new Counters();

    public TransportNetwork(OverlayTransport transport) {
        this.transport = transport;
    }

    public String address() {
        return transport.address();
    }

    @Override
    public CompletionStage<Message> request(String address, Message request, Duration deadline) {
        return transport.request(address, FRAME_TYPE, MessageCodec.encode(request), deadline).thenApply(bytes -> {
            try {
                return MessageCodec.decode(bytes);
            } catch (MalformedMessageException e) {
                counters.increment(MALFORMED);
                throw new DhtException(Reason.UNREACHABLE, "malformed answer from " + address + ": " + e.getMessage());
            }
        });
    }

    @Override
    public void bind(String address, Handler handler) {
        if (!address.equals(transport.address())) {
            throw new IllegalArgumentException("this transport listens at " + transport.address() + ", not " + address);
        }
        transport.serve((sender, type, payload) -> {
            if (type != FRAME_TYPE) {
                counters.increment(MALFORMED);
                return refuse(Reason.UNREACHABLE, "not a Bamboo message type: " + type);
            }
            Message request;
            try {
                request = MessageCodec.decode(payload);
            } catch (MalformedMessageException e) {
                counters.increment(MALFORMED);
                return refuse(Reason.UNREACHABLE, "malformed Bamboo message from " + sender + ": " + e.getMessage());
            }
            return handler.handle(request).thenApply(MessageCodec::encode);
        });
    }

    @Override
    public void unbind(String address) {
        transport.serve((sender, type, payload) -> refuse(Reason.CLOSED, "the Bamboo node at " + address + " has stopped"));
    }

    /** The transport's clock ({@link OverlayTransport#nanoTime}). */
    @Override
    public long nanoTime() {
        return transport.nanoTime();
    }

    public Map<String, Long> metrics() {
        var m = new java.util.HashMap<>(transport.metrics());
        m.putAll(counters.snapshot(MALFORMED));
        return m;
    }

    @Override
    public void close() {
        transport.close();
    }

    private static CompletionStage<byte[]> refuse(Reason reason, String why) {
        return CompletableFuture.failedFuture(new DhtException(reason, why));
    }
}
