package org.p2psip.dht.bryan;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Supplier;
import org.p2psip.dht.Counters;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeThread;
import org.p2psip.dht.ring.Members;
import org.p2psip.dht.ring.Membership;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.FingerTable;
import org.p2psip.dht.ring.store.Store;

/**
 * One place of a peer ({@link PeerPlaces}), or the whole peer when it takes one: the ring core
 * ({@link Membership}, {@link Store}) with its links, the answers it gives to peer REGISTERs for
 * it and the requests it sends. Thread confinement instead of locks: all state is used on the
 * peer's single loop thread; requests arriving from the transport and answers to this place's
 * requests hop onto it. Only {@link #counters} are read from other threads.
 */
final class BryanPeer {

    private final PeerPlaces host;
    private final PeerLink link;
    private final BryanSettings settings;
    private final Links links;
    private final Store store;
    private final Membership membership;
    private final PeerRing ring;
    private final Outbox outbox;
    private final Signature signature;
    private final Counters counters;
    private final NodeThread loop;

    /** The place at {@code id} of the peer {@code host}, on its link and loop. */
    BryanPeer(PeerPlaces host, Id id, Clock clock) {
        this.host = host;
        this.link = host.link();
        this.settings = host.settings();
        this.counters = host.counters();
        var table = new FingerTable(new NodeRef(id, link.address()), settings.successors(), settings.places());
        this.links = new Links(table);
        this.signature = host.signature();
        this.loop = host.loop();
        this.ring = new PeerRing(this);
        this.store = new Store(table, settings.ring(), ring, loop, clock, counters, "bryan", host.ownerRules());
        this.membership = new Membership(table, store, settings.ring(), loop, ring, counters, "bryan");
        this.outbox = new Outbox(this);
    }

    PeerLink link() {
        return link;
    }

    BryanSettings settings() {
        return settings;
    }

    Links links() {
        return links;
    }

    Store store() {
        return store;
    }

    Membership membership() {
        return membership;
    }

    PeerRing ring() {
        return ring;
    }

    Outbox outbox() {
        return outbox;
    }

    Counters counters() {
        return counters;
    }

    NodeThread loop() {
        return loop;
    }

    /** Every peer of the overlay as this place's peer knows it ({@link PeerPlaces#view}). */
    Members view() {
        return host.view();
    }

    /** As much of the view as a redirect of operations on {@code keys} carries ({@link PeerPlaces#owning}); null: none. */
    ViewHeader viewOwning(List<Id> keys) {
        return host.owning(keys);
    }

    NodeRef self() {
        return links.table().self();
    }

    CompletableFuture<Void> joined() {
        return membership.joined();
    }

    boolean isClosing() {
        return membership.isClosing();
    }

    /** Runs {@code work} on the loop after {@code millis}; null if the peer is closed. */
    ScheduledFuture<?> schedule(Runnable work, long millis) {
        return loop.schedule(work, millis);
    }

    /** Runs {@code work} on the loop (at once if already there); failures arrive unwrapped. */
    <T> CompletableFuture<T> onLoop(Supplier<CompletableFuture<T>> work) {
        return host.onLoop(work);
    }

    /** A response from this peer: its DHT-PeerID first, then what the handler adds. */
    PeerResponse reply(int status, String reason, NodeRef contact, List<LinkHeader> withLinks,
                       String contentType, byte[] body) {
        return response(status, reason, contact == null ? List.of() : List.of(contact), withLinks, contentType, body);
    }

    /** A 302 naming the peers to ask next, the first first. */
    PeerResponse redirect(List<NodeRef> next) {
        return response(302, "Moved Temporarily", next, List.of(), "", new byte[0]);
    }

    private PeerResponse response(int status, String reason, List<NodeRef> contacts, List<LinkHeader> withLinks,
                                  String contentType, byte[] body) {
        var headers = new ArrayList<PeerHeader>();
        headers.add(new PeerHeader(PeerIdHeader.NAME, idHeader().print()));
        withLinks.forEach(l -> headers.add(new PeerHeader(LinkHeader.NAME, l.print())));
        return new PeerResponse(status, reason, Answer.contactValue(contacts), headers, contentType, body);
    }

    PeerIdHeader idHeader() {
        return new PeerIdHeader(self(), settings.overlay(), linkExpires());
    }

    /** How long this peer vouches for a link it names: a few refresh periods. */
    long linkExpires() {
        return Math.max(1, 3 * settings.stabilize().toSeconds());
    }

    /** A peer REGISTER from this peer, unsigned: DHT-PeerID, the links, the operation if any. */
    PeerRequest request(int expires, List<LinkHeader> withLinks, OpHeader op, String contentType, byte[] body) {
        var headers = new ArrayList<PeerHeader>();
        headers.add(new PeerHeader(PeerIdHeader.NAME, idHeader().print()));
        withLinks.forEach(l -> headers.add(new PeerHeader(LinkHeader.NAME, l.print())));
        if (op != null) {
            headers.add(new PeerHeader(OpHeader.NAME, op.print()));
        }
        return new PeerRequest(PeerUri.print(self()), expires, headers, contentType, body);
    }

    /**
     * Names the place {@code to} as the target, stamps, signs and sends a request to it (a place of
     * this same peer without the link); the answer is checked and arrives on the loop. A transport
     * failure or an answer that does not verify fails the stage with DhtException. A signed answer
     * means the peer is alive ({@link Membership#heard}); one saying it hosts no such place
     * ({@link PeerPlaces#NO_SUCH_PLACE}) fails the stage as UNREACHABLE, after dropping the place.
     */
    CompletableFuture<Answer> send(NodeRef to, PeerRequest unsigned, Duration timeout) {
        PeerRequest signed = signature.sign(host.stamper().stamp(unsigned.toPlace(to.id().toString())));
        String auth = Signature.authOf(signed);
        counters.increment("bryan.requests.out");
        var result = new CompletableFuture<Answer>();
        CompletionStage<PeerResponse> sent;
        try {
            sent = to.address().equals(link.address()) ? host.sendToSibling(signed, timeout)
                    : link.send(to.address(), signed, timeout);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(new DhtException(Reason.UNREACHABLE, "cannot send to " + to + ": " + e, e));
        }
        sent.whenComplete((response, failure) -> loop.execute(() -> {
            if (failure != null) {
                result.completeExceptionally(DhtException.from(failure));
                return;
            }
            try {
                Answer answer = Answer.read(response, signature, auth, settings.places());
                if (answer.status() == PeerPlaces.NO_SUCH_PLACE && answer.responder() != null) {
                    var gone = new DhtException(Reason.UNREACHABLE, to + " is not there: " + answer.reason());
                    membership.failed(to, gone);
                    result.completeExceptionally(gone);
                    return;
                }
                if (answer.responder() != null) {
                    membership.heard(to);
                    if (answer.view() != null) {
                        host.took(answer.responder().address(), answer.view());
                    }
                }
                result.complete(answer);
            } catch (DhtException e) {
                result.completeExceptionally(e);
            }
        }));
        return result;
    }

}
