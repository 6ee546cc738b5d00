package org.p2psip.overlay;

import io.netty.util.concurrent.EventExecutor;
import org.p2psip.dht.DhtException.Reason;

/**
 * A node of an {@link InProcessNetwork}: frames travel as objects between event loops, with the
 * same correlation, deadlines and bounds as over TCP. Thread-safe.
 */
public final class InProcessTransport extends AbstractTransport {

    private final InProcessNetwork network;

    InProcessTransport(String address, OverlaySettings settings, EventExecutor loop, InProcessNetwork network) {
        super(address, settings, loop);
        this.network = network;
    }

    @Override
    protected void send(String peer, Frame frame, Pending request) {
        boolean sent = network.deliver(peer, frame, target -> target.serveRequest(frame,
                answer -> network.deliver(address, answer, self -> self.answered(answer))));
        if (!sent) {
            request.fail(Reason.UNREACHABLE, peer + " is not in the overlay");
        }
    }

    @Override
    public long nanoTime() {
        return network.nanoTime();
    }

    /** Leaves the network without a word: peers' requests fail, in-flight ones fail CLOSED. */
    @Override
    public void close() {
        if (isClosed()) {
            return;
        }
        network.leave(address, this);
        closePending();
    }
}
