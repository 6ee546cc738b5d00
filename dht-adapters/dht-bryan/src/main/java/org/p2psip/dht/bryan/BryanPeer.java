package org.p2psip.dht.bryan;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.p2psip.dht.Counters;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.ring.Loop;
import org.p2psip.dht.ring.Membership;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.RoutingTable;
import org.p2psip.dht.ring.store.Store;

/**
 * One peer: the ring core ({@link Membership}, {@link Store}) with its links, the answers it
 * gives to peer REGISTERs and the requests it sends. Thread confinement instead of locks: all
 * state is used on the peer's single loop thread; requests arriving from the transport and answers
 * to this peer's requests hop onto it. Only {@link #counters} are read from other threads.
 */
final class BryanPeer {

    private final PeerLink link;
    private final BryanSettings settings;
    private final Links links;
    private final Store store;
    private final Membership membership;
    private final PeerRing ring;
    private final Outbox outbox;
    private final Signature signature;
    private final Stamper stamper;
    private final ReplayGuard replays;
    private final Counters counters;
    private final Loop loop;
    private final Runnable stopLoop;

    /** A peer on a loop thread of its own. */
    BryanPeer(PeerLink link, BryanSettings settings, Clock clock, Counters counters) {
        this(link, settings, clock, counters, ownThread(link.address()));
    }

    /** A peer on {@code loop} (a simulation's, shared by many peers), which it never shuts down. */
    BryanPeer(PeerLink link, BryanSettings settings, Clock clock, Counters counters, Loop loop) {
        this(link, settings, clock, counters, new OwnLoop(loop, () -> { }));
    }

    private record OwnLoop(Loop loop, Runnable stop) {
    }

    private static OwnLoop ownThread(String address) {
        var thread = new AtomicReference<Thread>();
        var executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "bryan-peer-" + address);
            t.setDaemon(true);
            thread.set(t);
            return t;
        });
        // Every user's operation sets deadline timers that its answer cancels; left queued until they
        // would have fired (seconds later), tens of thousands of dead timers made every task's way
        // through the loop's queue dearer.
        executor.setRemoveOnCancelPolicy(true);
        return new OwnLoop(new Loop(executor, () -> Thread.currentThread() == thread.get()), executor::shutdownNow);
    }

    private BryanPeer(PeerLink link, BryanSettings settings, Clock clock, Counters counters, OwnLoop own) {
        this.link = link;
        this.settings = settings;
        this.counters = counters;
        var table = new RoutingTable(NodeRef.at(link.address()), settings.successors());
        this.links = new Links(table);
        this.signature = new Signature(settings.secret());
        this.stamper = new Stamper(clock);
        this.replays = new ReplayGuard(clock, settings.replayWindow(), counters);
        this.loop = own.loop();
        this.stopLoop = own.stop();
        this.ring = new PeerRing(this);
        this.store = new Store(table, settings.ring(), ring, loop, clock, counters, "bryan");
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

    Loop loop() {
        return loop;
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

    /** Starts answering peers and takes a place on the ring (see {@link Membership#start}); members are SIP addresses. */
    void start(String bootstrap, List<String> members) {
        link.serve(this::receive);
        loop.execute(() -> membership.start(bootstrap, members));
    }

    /** Runs {@code work} on the loop after {@code millis}; null if the peer is closed. */
    ScheduledFuture<?> schedule(Runnable work, long millis) {
        return loop.schedule(work, millis);
    }

    /** Runs {@code work} on the loop (at once if already there); failures arrive unwrapped. */
    <T> CompletableFuture<T> onLoop(Supplier<CompletableFuture<T>> work) {
        return loop.call(work, self().toString());
    }

    /** A peer REGISTER arrived (on a transport thread): answer it on the loop. */
    private CompletionStage<PeerResponse> receive(PeerRequest request) {
        counters.increment("bryan.requests.in");
        return onLoop(() -> {
            if (isClosing()) {
                return CompletableFuture.completedFuture(PeerResponse.refusal(480, "Peer leaving"));
            }
            Incoming in;
            try {
                in = Incoming.read(request, signature, settings.overlay());
                replays.admit(in.sender().peer().address(), in.stamp());
                membership.heardFrom(in.sender().peer().address());
            } catch (Refusal r) {
                counters.increment("bryan.refused");
                return CompletableFuture.completedFuture(r.response());
            }
            return Handlers.handle(this, in).thenApply(reply -> signature.sign(reply, in.auth()));
        });
    }

    /** A response from this peer: its DHT-PeerID first, then what the handler adds. */
    PeerResponse reply(int status, String reason, NodeRef contact, List<LinkHeader> withLinks,
                       String contentType, byte[] body) {
        var headers = new ArrayList<PeerHeader>();
        headers.add(new PeerHeader(PeerIdHeader.NAME, idHeader().print()));
        withLinks.forEach(l -> headers.add(new PeerHeader(LinkHeader.NAME, l.print())));
        return new PeerResponse(status, reason, contact == null ? "" : PeerUri.print(contact), headers,
                contentType, body);
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
     * Stamps, signs and sends a request to {@code to}; the answer is checked and arrives on the loop. A
     * transport failure or an answer that does not verify fails the stage with DhtException. A
     * signed answer means the peer is alive ({@link Membership#heard}).
     */
    CompletableFuture<Answer> send(NodeRef to, PeerRequest unsigned, Duration timeout) {
        PeerRequest signed = signature.sign(stamper.stamp(unsigned));
        String auth = Signature.authOf(signed);
        counters.increment("bryan.requests.out");
        var result = new CompletableFuture<Answer>();
        CompletionStage<PeerResponse> sent;
        try {
            sent = link.send(to.address(), signed, timeout);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(new DhtException(Reason.UNREACHABLE, "cannot send to " + to + ": " + e, e));
        }
        sent.whenComplete((response, failure) -> loop.execute(() -> {
            if (failure != null) {
                result.completeExceptionally(DhtException.from(failure));
                return;
            }
            try {
                Answer answer = Answer.read(response, signature, auth);
                if (answer.responder() != null) {
                    membership.heard(to);
                }
                result.complete(answer);
            } catch (DhtException e) {
                result.completeExceptionally(e);
            }
        }));
        return result;
    }

    void shutdownLoop() {
        stopLoop.run();
    }
}
