package org.p2psip.dht.chord;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import org.p2psip.dht.Counters;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.OwnerRules;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeThread;
import org.p2psip.dht.ring.Members;
import org.p2psip.dht.ring.Members.Member;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.Membership;
import org.p2psip.dht.ring.VirtualNodes;
import org.p2psip.overlay.OverlayTransport;

/**
 * The places one physical Chord node takes on the ring ({@link VirtualNodes}), each a {@link ChordNode}
 * of its own, on the node's one transport and one loop. Every request names the place it is for
 * (its id, first in the payload); this answers it with that place, and a request for a place it
 * does not host with an error, which the sender takes as it takes an unreachable node. A request
 * to another place of the same node is answered without the network.
 *
 * <p>Not thread-safe: used on the transport's event loop, except the places' thread-safe readings.
 */
final class NodePlaces {

    private final OverlayTransport transport;
    private final NodeThread loop;
    private final List<ChordNode> places = new ArrayList<>();
    /** The places' memberships, in the same order: what the ring core's {@link VirtualNodes} works on. */
    private final List<Membership> memberships = new ArrayList<>();
    private final Map<Id, ChordNode> byId = new HashMap<>();
    private final OwnerRules ownerRules;
    private final ChordSettings settings;
    private final Clock clock;
    /** Every node of the ring as this one knows it, by gossip: what an operation's one hop goes by. */
    private final Members view;
    private ScheduledFuture<?> gossiping;
    private final NodeCopies copies;

    NodePlaces(OverlayTransport transport, Id first, ChordSettings settings, Clock clock, Counters counters, OwnerRules ownerRules) {
        this.transport = transport;
        this.ownerRules = ownerRules;
        this.settings = settings;
        this.clock = clock;
        this.loop = new NodeThread(transport.executor(), transport.executor()::inEventLoop, transport::nanoTime);
        this.view = new Members(new Member(transport.address(), 0, first, Math.max(1, clock.millis())),
                settings.oneHopMaxNodes(), settings.stabilizeIdle().toNanos(), loop::nanoTime,
                transport.address().hashCode());
        this.copies = new NodeCopies(transport, settings.requestTimeout(), counters, view::gossips);
        List<Id> ids = new ArrayList<>(VirtualNodes.ids(transport.address(), settings.places()));
        ids.set(0, first);
        for (Id id : ids) {
            var place = new ChordNode(this, id, settings, clock, counters);
            places.add(place);
            byId.putIfAbsent(id, place);
            memberships.add(place.membership());
            place.membership().onDropped(peer -> view.suspect(peer.address()));
        }
        // peers reach a node's first place at the hash of its address, whatever id it was given
        byId.putIfAbsent(Id.hash(transport.address()), places.get(0));
    }

    OverlayTransport transport() {
        return transport;
    }

    /** The rules every place applies to the changes it owns. */
    OwnerRules ownerRules() {
        return ownerRules;
    }

    NodeThread loop() {
        return loop;
    }

    /** Every place, the first (the one at the hash of the address, or the configured id) first. */
    List<ChordNode> places() {
        return places;
    }

    ChordNode first() {
        return places.get(0);
    }

    /** The place of this node whose id is {@code id}; null when it hosts none. */
    ChordNode place(Id id) {
        return byId.get(id);
    }

    /** The view of every node of the ring, for one hop ({@link Members}). On the loop. */
    Members view() {
        return view;
    }

    /** Starts serving, then takes its places ({@link VirtualNodes#startInTurn}) and gossips its view once a round. */
    void start(String bootstrap, List<String> members) {
        transport.serve(this::respond);
        VirtualNodes.startInTurn(memberships, bootstrap, members, loop);
        if (settings.oneHopMaxNodes() > 0) {
            gossiping = loop.every(this::gossip, settings.stabilizeIdle().toMillis());
        }
    }

    /**
     * One gossip round: this node's heartbeat rises with the count of its places that own their
     * ranges; the nodes its places' successor lists name join the view; then it swaps views with
     * one member. A swap that fails changes nothing: a silent member is forgotten by expiry.
     */
    private void gossip() {
        if (places.get(0).isClosing()) {
            gossiping.cancel(false);
            return;
        }
        view.beat(clock.millis(), memberships);
        String target = view.gossipTarget();
        if (target == null) {
            return;
        }
        byte[] mine = viewMessage();
        transport.request(target, MessageType.VIEW, addressed(Id.hash(target), mine), settings.requestTimeout())
                .whenComplete((answer, failure) -> loop.execute(() -> {
                    if (failure == null) {
                        takeView(answer, target);
                    }
                }));
    }

    private byte[] viewMessage() {
        List<Member> entries = view.entries();
        return new ChordCodec.Writer().u8(view.isLarge() ? 1 : 0).members(entries).bytes();
    }

    /** Takes the view {@code from} sent, in a swap: it lives. */
    private void takeView(byte[] message, String from) {
        var in = new ChordCodec.Reader(message);
        boolean large = in.u8() == 1;
        view.swapped(from, in.members(), large);
    }

    /**
     * The place an operation on {@code key} starts from: one that owns it, else the one whose id
     * precedes it most closely (its lookup has the fewest steps left).
     */
    ChordNode placeFor(Id key) {
        return places.size() == 1 ? first() : places.get(VirtualNodes.startingPlace(memberships, key));
    }

    /** A request's payload as it travels: the target place's id, then the message's own payload. */
    static byte[] addressed(Id target, byte[] payload) {
        return new ChordCodec.Writer().id(target).raw(payload).bytes();
    }

    /** Sends a STORE to the place {@code to}: with the others waiting for its node ({@link NodeCopies}), or at once to a place of this node. */
    CompletableFuture<byte[]> store(NodeRef to, byte[] store) {
        if (to.address().equals(transport.address())) {
            return request(to, MessageType.STORE, store, settings.requestTimeout());
        }
        return copies.send(to, store);
    }

    /** Sends a request to the place {@code to}; a place of this same node answers without the network. */
    CompletableFuture<byte[]> request(NodeRef to, int type, byte[] payload, Duration deadline) {
        if (!to.address().equals(transport.address())) {
            return transport.request(to.address(), type, addressed(to.id(), payload), deadline).toCompletableFuture();
        }
        var answer = new CompletableFuture<byte[]>();
        loop.execute(() -> {
            CompletionStage<byte[]> local;
            try {
                local = dispatch(transport.address(), type, to.id(), payload);
            } catch (RuntimeException e) {
                local = CompletableFuture.failedFuture(e);
            }
            local.whenComplete((bytes, failure) -> {
                if (failure == null) {
                    answer.complete(bytes);
                } else {
                    DhtException why = DhtException.from(failure);
                    // as a peer's error answer arrives: unreachable, unless it was overloaded
                    answer.completeExceptionally(why.reason() == Reason.OVERLOADED ? why
                            : new DhtException(Reason.UNREACHABLE, why.getMessage()));
                }
            });
        });
        return answer;
    }

    /** Answers a peer's request: the place it names answers the rest. On the loop. */
    private CompletionStage<byte[]> respond(String sender, int type, byte[] payload) {
        if (payload.length < Id.BYTES) {
            return CompletableFuture.failedFuture(new DhtException(Reason.UNREACHABLE, "a request names no place"));
        }
        Id target = Id.of(Arrays.copyOfRange(payload, 0, Id.BYTES));
        byte[] rest = Arrays.copyOfRange(payload, Id.BYTES, payload.length);
        if (type == MessageType.VIEW) {
            // the view is the node's, not a place's: answered first, then the asker's taken
            byte[] mine = viewMessage();
            takeView(rest, sender);
            return CompletableFuture.completedFuture(mine);
        }
        if (type == MessageType.COPIES) {
            return CompletableFuture.completedFuture(takeCopies(sender, rest));
        }
        return dispatch(sender, type, target, rest);
    }

    /** Each STORE of a COPIES frame to its place; answers whether each was taken (its place is here and not leaving). */
    private byte[] takeCopies(String sender, byte[] frame) {
        var in = new ChordCodec.Reader(frame);
        int count = in.u16();
        var taken = new ChordCodec.Writer();
        for (int i = 0; i < count; i++) {
            ChordNode place = byId.get(in.id());
            byte[] store = in.blob();
            boolean ok = place != null && !place.isClosing();
            if (ok) {
                place.respond(sender, MessageType.STORE, store);
            }
            taken.u8(ok ? 1 : 0);
        }
        return taken.bytes();
    }

    private CompletionStage<byte[]> dispatch(String sender, int type, Id target, byte[] payload) {
        ChordNode place = byId.get(target);
        if (place == null) {
            return CompletableFuture.failedFuture(new DhtException(Reason.UNREACHABLE,
                    transport.address() + " hosts no place " + target));
        }
        return place.respond(sender, type, payload);
    }

    /** Records held, summed over the places. Thread-safe. */
    long records() {
        return places.stream().mapToLong(p -> p.store().size()).sum();
    }

    /** Removal markers held (apart from {@link #records()}), summed over the places. Thread-safe. */
    long markers() {
        return places.stream().mapToLong(p -> p.store().markers()).sum();
    }

    /**
     * The share of the ring the places own, in millionths: the sum of those that know their
     * range; -1 when none does. Thread-safe.
     */
    long rangePpm() {
        return VirtualNodes.rangePpm(memberships);
    }
}
