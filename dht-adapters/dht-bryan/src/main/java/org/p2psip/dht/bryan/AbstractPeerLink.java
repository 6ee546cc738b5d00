package org.p2psip.dht.bryan;

/**
 * What every {@link PeerLink} keeps: its address, the handler it serves with, and whether it was
 * closed. Subclasses add how messages travel. Thread-safe.
 */
public abstract class AbstractPeerLink implements PeerLink {

    private final String address;
    private volatile Handler handler;
    private volatile boolean closed;

    protected AbstractPeerLink(String address) {
        this.address = address;
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    public void serve(Handler handler) {
        this.handler = handler;
    }

    /** The handler received REGISTERs go to; null before {@link #serve} or after {@link #close}. */
    protected Handler handler() {
        return closed ? null : handler;
    }

    protected boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
    }
}
