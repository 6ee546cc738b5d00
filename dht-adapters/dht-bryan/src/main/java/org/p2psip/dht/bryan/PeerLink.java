package org.p2psip.dht.bryan;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * How a peer sends and receives peer REGISTERs: the only thing the overlay needs of SIP. One
 * implementation sends through the SIP servlet container (the servlet module's), one carries the
 * messages in-process as SIP text for tests ({@code InProcessPeerNetwork}). What every one does is
 * the tests' {@code PeerLinkContract}.
 *
 * <p>Implementations are thread-safe; stages complete on a transport thread.
 */
public interface PeerLink {

    /** This peer's SIP address (host:port), where others reach it. */
    String address();

    /**
     * Sends {@code request} to the peer at {@code target} (host:port). The stage completes with the
     * final response, or fails with a {@link org.p2psip.dht.DhtException} (TIMEOUT when none came
     * within {@code deadline}, UNREACHABLE when it could not be sent); it never stays pending longer.
     */
    CompletionStage<PeerResponse> send(String target, PeerRequest request, Duration deadline);

    /** Hands every peer REGISTER received from now on to {@code handler}; its stage's answer is sent back. */
    void serve(Handler handler);

    /** Stops receiving; requests in flight fail. */
    void close();

    /** What a peer does with a REGISTER it received. */
    @FunctionalInterface
    interface Handler {
        CompletionStage<PeerResponse> handle(PeerRequest request);
    }
}
