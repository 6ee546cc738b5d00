package org.p2psip.dht.bryan;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.p2psip.dht.Counters;
import org.p2psip.dht.OwnerRules;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeThread;
import org.p2psip.dht.ring.Members;
import org.p2psip.dht.ring.Members.Member;
import org.p2psip.dht.ring.Membership;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.VirtualNodes;

/**
 * The places one physical peer takes on the ring ({@link VirtualNodes}), each a {@link BryanPeer} of its
 * own (links, membership, records), on the peer's one link and one loop. Every peer REGISTER names
 * its target place in the Request-URI ({@link PeerRequest#target}); this checks it once (signature,
 * overlay, replay), answers it with that place, and refuses one for a place it does not host with
 * {@code 404}, which the sender takes as an unreachable peer and drops. A request to another place
 * of this same peer is answered without the link. The {@link Stamper} and the {@link ReplayGuard}
 * are the physical peer's: the replay guard keeps one sequence per sending address. So is the
 * view of every peer of a small overlay ({@link Members}), which the users' operations are routed
 * by in one hop: it is swapped with one member a round, and carried in {@code DHT-View} by the
 * redirects of users' operations so that a stale one is corrected by the answer.
 *
 * <p>Thread confinement: the places and the guard are used on the loop only; the links, the
 * stamper and the thread-safe readings ({@link #records}, {@link #rangePpm}) from anywhere.
 */
final class PeerPlaces {

    private final PeerLink link;
    private final BryanSettings settings;
    private final Counters counters;
    private final Signature signature;
    private final Stamper stamper;
    private final ReplayGuard replays;
    private final NodeThread loop;
    private final Runnable stopLoop;
    private final List<BryanPeer> places = new ArrayList<>();
    /** The places' memberships, in the same order: what the ring core's {@link VirtualNodes} works on. */
    private final List<Membership> memberships = new ArrayList<>();
    private final Map<String, BryanPeer> byId = new HashMap<>();
    private final OwnerRules ownerRules;
    private final Clock clock;
    /** Every peer of the overlay as this one knows it, by gossip: what a user's operation's one hop goes by. */
    private final Members view;
    private ScheduledFuture<?> gossiping;

    /** A peer on a loop thread of its own. */
    PeerPlaces(PeerLink link, BryanSettings settings, Clock clock, Counters counters, OwnerRules ownerRules) {
        this(link, settings, clock, counters, ownThread(link.address()), ownerRules);
    }

    /** A peer on {@code loop} (a simulation's, shared by many peers), which it never shuts down. */
    PeerPlaces(PeerLink link, BryanSettings settings, Clock clock, Counters counters, NodeThread loop) {
        this(link, settings, clock, counters, new OwnLoop(loop, () -> { }), OwnerRules.NONE);
    }

    private record OwnLoop(NodeThread loop, Runnable stop) {
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
        return new OwnLoop(new NodeThread(executor, () -> Thread.currentThread() == thread.get()), executor::shutdownNow);
    }

    private PeerPlaces(PeerLink link, BryanSettings settings, Clock clock, Counters counters, OwnLoop own,
                       OwnerRules ownerRules) {
        this.link = link;
        this.ownerRules = ownerRules;
        this.settings = settings;
        this.counters = counters;
        this.signature = new Signature(settings.secret());
        this.stamper = new Stamper(clock);
        this.replays = new ReplayGuard(clock, settings.replayWindow(), counters);
        this.loop = own.loop();
        this.stopLoop = own.stop();
        this.clock = clock;
        this.view = new Members(new Member(link.address(), 0, Id.hash(link.address()), Math.max(1, clock.millis())),
                settings.oneHopMaxNodes(), settings.stabilizeIdle().toNanos(), loop::nanoTime, link.address().hashCode());
        for (Id id : VirtualNodes.ids(link.address(), settings.places())) {
            var place = new BryanPeer(this, id, clock);
            places.add(place);
            byId.put(id.toString(), place);
            memberships.add(place.membership());
            place.membership().onDropped(peer -> view.suspect(peer.address()));
        }
    }

    /** The rules every place applies to the changes it owns. */
    OwnerRules ownerRules() {
        return ownerRules;
    }

    PeerLink link() {
        return link;
    }

    BryanSettings settings() {
        return settings;
    }

    Counters counters() {
        return counters;
    }

    Signature signature() {
        return signature;
    }

    Stamper stamper() {
        return stamper;
    }

    NodeThread loop() {
        return loop;
    }

    /** Every place, the first (at the hash of the address, the place of a one-place peer) first. */
    List<BryanPeer> places() {
        return places;
    }

    BryanPeer first() {
        return places.get(0);
    }

    /** The view of every peer of the overlay, for one hop ({@link Members}). On the loop. */
    Members view() {
        return view;
    }

    /** Starts answering peers, then takes its places ({@link VirtualNodes#startSideBySide}) and swaps its view once a round. */
    void start(String bootstrap, List<String> members) {
        link.serve(this::receive);
        VirtualNodes.startSideBySide(memberships, bootstrap, members, loop);
        if (settings.oneHopMaxNodes() > 0) {
            gossiping = loop.every(this::gossip, settings.stabilizeIdle().toMillis());
        }
    }

    /**
     * One gossip round: this peer's heartbeat rises with the count of its places that own their
     * ranges, the peers its places' successor lists name join the view, and it swaps views with
     * one member ({@link PeerRing#swap}). A swap that fails changes nothing: a silent member is
     * forgotten by expiry.
     */
    private void gossip() {
        if (first().isClosing()) {
            gossiping.cancel(false);
            return;
        }
        view.beat(clock.millis(), memberships);
        String target = view.gossipTarget();
        if (target != null) {
            first().ring().swap(target, whole());
        }
    }

    /** The whole view as DHT-View says it: its members, or that it keeps none (large); null with one hop off. */
    ViewHeader whole() {
        if (settings.oneHopMaxNodes() == 0) {
            return null;
        }
        return view.isLarge() ? new ViewHeader(true, List.of()) : new ViewHeader(false, view.entries());
    }

    /**
     * As much of the view as a redirect of operations on {@code keys} carries, enough to correct
     * the asker's: this peer's entry and those of the owners its view names for the keys; or that
     * it keeps none (large); null with one hop off.
     */
    ViewHeader owning(List<Id> keys) {
        ViewHeader whole = whole();
        if (whole == null || whole.large()) {
            return whole;
        }
        var named = new HashSet<String>();
        named.add(link.address());
        for (Id key : keys) {
            NodeRef owner = view.owner(key);
            if (owner != null) {
                named.add(owner.address());
            }
        }
        return new ViewHeader(false, whole.members().stream().filter(m -> named.contains(m.address())).toList());
    }

    /** Takes the view {@code from} sent, in a request or an answer: it lives ({@link Members#swapped}). On the loop. */
    void took(String from, ViewHeader sent) {
        view.swapped(from, sent.members(), sent.large());
    }

    /**
     * The place a user's operation on {@code key} starts from: one that is responsible for it, else
     * the one whose id precedes it most closely (its routing has the fewest steps left). On the loop.
     */
    BryanPeer placeFor(Id key) {
        return places.size() == 1 ? first() : places.get(VirtualNodes.startingPlace(memberships, key));
    }

    /** Runs {@code work} on the loop (at once if already there); failures arrive unwrapped. */
    <T> CompletableFuture<T> onLoop(Supplier<CompletableFuture<T>> work) {
        return loop.call(work, link.address());
    }

    /**
     * A signed request to a place of this same peer: answered on the loop, after whatever runs
     * there now, as if it had come through the link (checked, guarded against replay), without it;
     * failed with TIMEOUT when no answer came within {@code deadline} (on the loop's clock, which
     * a simulation's is).
     */
    CompletableFuture<PeerResponse> sendToSibling(PeerRequest signed, Duration deadline) {
        var answer = new CompletableFuture<PeerResponse>();
        ScheduledFuture<?> timer = loop.schedule(() -> answer.completeExceptionally(new DhtException(Reason.TIMEOUT,
                link.address() + " did not answer itself within " + deadline)), deadline.toMillis());
        if (timer == null) {
            return CompletableFuture.failedFuture(new DhtException(Reason.CLOSED, link.address() + " is closed"));
        }
        answer.whenComplete((r, e) -> timer.cancel(false));
        loop.execute(() -> receive(signed).whenComplete((response, failure) -> {
            if (failure == null) {
                answer.complete(response);
            } else {
                answer.completeExceptionally(failure);
            }
        }));
        return answer;
    }

    /** A peer REGISTER arrived (on a transport thread, or a sibling's on the loop): the place it names answers it on the loop. */
    private CompletionStage<PeerResponse> receive(PeerRequest request) {
        counters.increment("bryan.requests.in");
        return onLoop(() -> {
            BryanPeer place = request.target().isEmpty() ? first() : byId.get(request.target().toLowerCase(java.util.Locale.ROOT));
            if (place != null && place.isClosing()) {
                return CompletableFuture.completedFuture(PeerResponse.refusal(480, "Peer leaving"));
            }
            Incoming in;
            try {
                in = Incoming.read(request, signature, settings.overlay(), settings.places());
                replays.admit(in.sender().peer().address(), in.stamp());
            } catch (Refusal r) {
                counters.increment("bryan.refused");
                return CompletableFuture.completedFuture(r.response());
            }
            if (place == null) {
                // signed by the first place, so that the sender believes it: no such peer lives here
                counters.increment("bryan.places.refused");
                return CompletableFuture.completedFuture(signature.sign(first().reply(NO_SUCH_PLACE,
                        "No Such Peer: " + link.address() + " hosts no place " + request.target(), null, List.of(), "",
                        new byte[0]), in.auth()));
            }
            place.membership().heardFrom(in.sender().peer().address());
            // a swap: answered with this peer's view as it was, then the asker's is taken
            ViewHeader mine = in.view() == null ? null : whole();
            if (in.view() != null) {
                took(in.sender().peer().address(), in.view());
            }
            return Handlers.handle(place, in).thenApply(reply -> signature.sign(
                    mine == null ? reply : reply.replacing(mine.header()), in.auth()));
        });
    }

    /** The status of a request for a place the peer does not host: the Peer-ID does not exist at its address. */
    static final int NO_SUCH_PLACE = 404;

    /** Records held, summed over the places. Thread-safe. */
    long records() {
        return places.stream().mapToLong(p -> p.store().size()).sum();
    }

    /** The share of the ring the places own, in millionths: the sum of those that know their range; -1 when none does. Thread-safe. */
    long rangePpm() {
        return VirtualNodes.rangePpm(memberships);
    }

    void shutdownLoop() {
        stopLoop.run();
    }
}
