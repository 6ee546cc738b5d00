package org.p2psip.dht.bryan;

/** A peer REGISTER this peer will not act on, with the SIP status and reason to answer it with. */
final class Refusal extends Exception {

    private static final long serialVersionUID = 1L;
    private final int status;

    Refusal(int status, String reason) {
        super(reason, null, false, false);
        this.status = status;
    }

    PeerResponse response() {
        return PeerResponse.refusal(status, getMessage());
    }
}
