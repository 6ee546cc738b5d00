package org.p2psip.dht.bryan;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.p2psip.dht.Counters;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.ring.NodeRef;

/**
 * One peer: its links, its records, the answers it gives to peer REGISTERs and the requests it
 * sends. Thread confinement instead of locks: all state is used on the peer's single loop thread;
 * requests arriving from the transport and answers to this peer's requests hop onto it. Only
 * {@link #counters} are read from other threads.
 */
final class BryanPeer {

    private final PeerLink link;
    private final BryanSettings settings;
    private final Links links;
    private final Store store;
    private final Ring ring;
    private final Outbox outbox;
    private final Signature signature;
    private final Stamper stamper;
    private final ReplayGuard replays;
    private final Counters counters;
    private final ScheduledExecutorService loop;
    private volatile Thread loopThread;
    private final CompletableFuture<Void> joined = new CompletableFuture<>();
    private final CompletableFuture<Void> placed = new CompletableFuture<>();
    private final Map<NodeRef, Integer> timeouts = new HashMap<>();
    private final List<ScheduledFuture<?>> tasks = new ArrayList<>();
    private volatile boolean closing;

    BryanPeer(PeerLink link, BryanSettings settings, Clock clock, Counters counters) {
        this.link = link;
        this.settings = settings;
        this.counters = counters;
        this.links = new Links(NodeRef.at(link.address()), settings.successors());
        this.signature = new Signature(settings.secret());
        this.stamper = new Stamper(clock);
        this.replays = new ReplayGuard(clock, settings.replayWindow(), counters);
        var executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "bryan-peer-" + link.address());
            t.setDaemon(true);
            loopThread = t;
            return t;
        });
        // Every user's operation sets deadline timers that its answer cancels; left queued until they
        // would have fired (seconds later), tens of thousands of dead timers made every task's way
        // through the loop's queue dearer.
        executor.setRemoveOnCancelPolicy(true);
        this.loop = executor;
        this.store = new Store(this, clock);
        this.ring = new Ring(this);
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

    Ring ring() {
        return ring;
    }

    Outbox outbox() {
        return outbox;
    }

    Counters counters() {
        return counters;
    }

    NodeRef self() {
        return links.self();
    }

    CompletableFuture<Void> joined() {
        return joined;
    }

    /** Completes once this peer has joined and serves a range of the ring (it has a predecessor and holds its records, or is alone). */
    CompletableFuture<Void> placed() {
        return placed;
    }

    /** Completes {@link #placed()} when the peer has just taken its place; call after its joined state or predecessor changed. */
    void checkPlaced() {
        if (!placed.isDone() && joined.isDone() && !joined.isCompletedExceptionally() && links.responsibleFor(self().id())) {
            placed.complete(null);
        }
    }

    boolean isClosing() {
        return closing;
    }

    /**
     * Starts answering peers and the periodic tasks; joins through {@code bootstrap} (or, while it
     * does not admit it, the other {@code members} in turn) unless empty or this peer, else through
     * any of {@code members} (SIP addresses) that admits it, else starts a ring.
     */
    void start(String bootstrap, List<String> members) {
        link.serve(this::receive);
        execute(() -> {
            every(settings.stabilize(), ring::stabilize);
            every(settings.stabilize(), ring::checkPredecessor);
            every(settings.stabilize(), store::maintainReplicas);
            every(settings.fixFingers(), ring::fixFingers);
            every(settings.sweep(), store::sweep);
            boolean founder = bootstrap.isEmpty() || bootstrap.equals(self().address());
            List<NodeRef> others = members.stream().filter(m -> !m.equals(self().address())).map(NodeRef::at).toList();
            if (founder && others.isEmpty()) {
                joined.complete(null);
                checkPlaced();
            } else if (founder) {
                links.awaitingRecords(true);
                ring.found(others);
            } else {
                links.awaitingRecords(true);
                ring.join(Stream.concat(Stream.of(NodeRef.at(bootstrap)), others.stream()).distinct().toList());
            }
        });
    }

    private void every(Duration interval, Runnable task) {
        tasks.add(loop.scheduleWithFixedDelay(() -> {
            if (!closing) {
                task.run();
            }
        }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS));
    }

    void execute(Runnable work) {
        try {
            loop.execute(work);
        } catch (RejectedExecutionException e) {
            // the peer is closed: nothing is left to do
        }
    }

    /** Runs {@code work} on the loop after {@code millis}; null if the peer is closed. */
    ScheduledFuture<?> schedule(Runnable work, long millis) {
        try {
            return loop.schedule(work, millis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            return null; // the peer is closed
        }
    }


    /** Runs {@code work} on the loop (at once if already there); failures arrive unwrapped. */
    <T> CompletableFuture<T> onLoop(Supplier<CompletableFuture<T>> work) {
        if (Thread.currentThread() == loopThread) {
            return work.get();
        }
        var result = new CompletableFuture<T>();
        try {
            loop.execute(() -> work.get().whenComplete((v, e) -> {
                if (e != null) {
                    result.completeExceptionally(unwrap(e));
                } else {
                    result.complete(v);
                }
            }));
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new DhtException(Reason.CLOSED, self() + " is closed"));
        }
        return result;
    }

    /** A peer REGISTER arrived (on a transport thread): answer it on the loop. */
    private CompletionStage<PeerResponse> receive(PeerRequest request) {
        counters.increment("bryan.requests.in");
        return onLoop(() -> {
            if (closing) {
                return CompletableFuture.completedFuture(PeerResponse.refusal(480, "Peer leaving"));
            }
            Incoming in;
            try {
                in = Incoming.read(request, signature, settings.overlay());
                replays.admit(in.sender().peer().address(), in.stamp());
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
     * transport failure or an answer that does not verify fails the stage with DhtException.
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
        sent.whenComplete((response, failure) -> execute(() -> {
            if (failure != null) {
                result.completeExceptionally(unwrap(failure));
                return;
            }
            try {
                Answer answer = Answer.read(response, signature, auth);
                if (answer.responder() != null) {
                    heard(to);
                }
                result.complete(answer);
            } catch (DhtException e) {
                result.completeExceptionally(e);
            }
        }));
        return result;
    }

    /**
     * {@code peer} failed to answer. An unreachable peer is dropped from the links at once; a
     * silent one after {@code timeouts-before-failure} timeouts in a row, so that one slow answer
     * does not make a live peer look dead. Returns whether it was dropped.
     */
    boolean failed(NodeRef peer, Throwable failure) {
        DhtException why = unwrap(failure);
        if (why.reason() == Reason.OVERLOADED || (why.reason() == Reason.TIMEOUT
                && timeouts.merge(peer, 1, Integer::sum) < settings.timeoutsBeforeFailure())) {
            return false;
        }
        timeouts.remove(peer);
        counters.increment("bryan.peers.failed");
        links.drop(peer, false);
        return true;
    }

    /**
     * {@code peer} answered, whatever the request: it is alive. Under overload the ring's own
     * REGISTERs may time out while the users' operations and copies are still answered, and a
     * peer that answers is not to be taken for failed (two overloaded peers once dropped each
     * other over and over while each answered the other's writes).
     */
    private void heard(NodeRef peer) {
        timeouts.remove(peer);
        ring.heard(peer);
    }

    /** Leaves gracefully: hands records on, tells the neighbours (Expires: 0), stops the tasks. */
    CompletableFuture<Void> leave() {
        closing = true;
        tasks.forEach(t -> t.cancel(false));
        joined.completeExceptionally(new DhtException(Reason.CLOSED, self() + " closed"));
        placed.completeExceptionally(new DhtException(Reason.CLOSED, self() + " closed"));
        return ring.leave();
    }

    /** Stops without telling anyone: a crash, for tests. */
    void crash() {
        closing = true;
        tasks.forEach(t -> t.cancel(false));
    }

    void shutdownLoop() {
        loop.shutdownNow();
    }

    static DhtException unwrap(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return cause instanceof DhtException d ? d : new DhtException(Reason.UNREACHABLE, String.valueOf(cause), cause);
    }
}
