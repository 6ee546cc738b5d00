package org.p2psip.dht.bryan;

import java.time.Clock;
import java.util.Map;
import java.util.Set;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.p2psip.config.Config;
import org.p2psip.dht.BindingCodec;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Counters;
import org.p2psip.dht.Dht;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.MalformedBindingException;
import org.p2psip.dht.Updated;
import org.p2psip.dht.OwnerRules;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeThread;
import org.p2psip.dht.ring.NodeRef;

/**
 * The Bryan backend of the {@link Dht} service: a resource's responsible peer is the successor of
 * SHA-1(AOR) on a Chord ring the peers keep with SIP REGISTERs; get, put and remove are peer
 * REGISTERs sent to it in one hop while the peer's view of a small overlay names it, else routed to
 * it iteratively (302).
 *
 * <p>Thread-safe: every call hops onto the peer's loop and returns at once.
 */
public final class BryanDht implements Dht {

    private final PeerPlaces places;
    /** The first place: the peer as a one-place ring knows it. */
    private final BryanPeer peer;
    private final Counters counters;
    private final boolean appliesChanges;
    private volatile boolean closed;

    private BryanDht(PeerPlaces places, Counters counters, boolean appliesChanges) {
        this.places = places;
        this.appliesChanges = appliesChanges;
        this.peer = places.first();
        this.counters = counters;
    }

    /**
     * Starts a peer on {@code link} (its address is the peer's SIP address) and begins joining
     * through the configured bootstrap. Refuses (IllegalArgumentException) to start without
     * {@code p2psip.overlay.secret}. Operations fail with UNREACHABLE until the peer has joined.
     */
    public static BryanDht start(PeerLink link, Config config, Clock clock, OwnerRules ownerRules) {
        var counters = new Counters();
        return start(new PeerPlaces(link, BryanSettings.from(config), clock, counters, ownerRules), config, counters,
                ownerRules != OwnerRules.NONE);
    }

    /** {@link #start(PeerLink, Config, Clock, OwnerRules)} for a peer that applies no changes ({@link #update} refused). */
    public static BryanDht start(PeerLink link, Config config, Clock clock) {
        return start(link, config, clock, OwnerRules.NONE);
    }

    /**
     * As {@link #start(PeerLink, Config, Clock)}, on {@code loop} instead of a thread of its own:
     * a simulation runs many peers on one loop in virtual time, and the link must complete its
     * stages on that loop. Closing the peer leaves the loop running.
     */
    public static BryanDht start(PeerLink link, Config config, Clock clock, NodeThread loop) {
        var counters = new Counters();
        return start(new PeerPlaces(link, BryanSettings.from(config), clock, counters, loop), config, counters, false);
    }

    /**
     * The service over {@code places}, which start joining through the configured bootstrap.
     *
     * @param counters       the counters {@code places} count in
     * @param appliesChanges whether {@code places} apply changes ({@link #update})
     */
    static BryanDht start(PeerPlaces places, Config config, Counters counters, boolean appliesChanges) {
        places.start(BryanSettings.bootstrap(config), BryanSettings.members(config));
        return new BryanDht(places, counters, appliesChanges);
    }

    /** Completes when every place of the peer has its place on the ring (at once for the first peer of one place). */
    @Override
    public CompletionStage<Void> joined() {
        return all(BryanPeer::joined);
    }

    /** Completes when the stage {@code each} gives of every place has, failed when one failed. */
    private CompletableFuture<Void> all(Function<BryanPeer, CompletableFuture<Void>> each) {
        return CompletableFuture.allOf(places.places().stream().map(each).toArray(CompletableFuture[]::new));
    }

    /**
     * Completes once this peer and its successor have agreed on each other, with its range handed
     * to it, for {@link org.p2psip.dht.ring.Membership#SETTLED_ROUNDS} stabilisations in a row (at
     * once when it is alone by design, with no other members).
     */
    @Override
    public CompletionStage<Void> settled() {
        return places.onLoop(() -> all(p -> p.membership().settled()));
    }

    /**
     * Completes once the peer has joined and serves its range of the ring: it has a predecessor
     * (the peer before it took it as successor and told it so), or it is the first peer. Until
     * then every key it would own is still served by no one, and operations wait for the ring.
     */
    public CompletionStage<Void> placed() {
        return all(p -> p.membership().placed());
    }

    /** This peer's SIP address and the Peer-ID of its first place. */
    public NodeRef self() {
        return peer.self();
    }

    @Override
    public CompletionStage<BindingSet> get(String aor) {
        counters.increment("bryan.gets");
        return operation(new OpHeader(OpHeader.Op.GET, Id.hash(aor), -1), "", new byte[0], true,
                outcome -> record(aor, outcome, "get"));
    }

    @Override
    public CompletionStage<Boolean> put(BindingSet next) {
        return putOrCurrent(next).thenApply(Optional::isEmpty);
    }

    /** One routed REGISTER: a 412 carries the record that refused the put. */
    @Override
    public CompletionStage<Optional<BindingSet>> putOrCurrent(BindingSet next) {
        counters.increment("bryan.puts");
        return operation(new OpHeader(OpHeader.Op.PUT, Id.hash(next.aor()), next.version()), RecordsBody.SET_TYPE,
                BindingCodec.encode(next), false, outcome -> outcome.status() == 200
                        ? Optional.<BindingSet>empty()
                        : Optional.of(record(next.aor(), outcome, "412")));
    }

    @Override
    public boolean appliesChanges() {
        return appliesChanges;
    }

    /**
     * One routed REGISTER: the owner applies the change and answers 200 with the record written
     * (or, to a replica asking, with the copy it keeps), or 412 with the record it left, each with
     * the rules' answer.
     */
    @Override
    public CompletionStage<Updated> update(String aor, byte[] change) {
        counters.increment("bryan.updates");
        byte[] name = aor.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (name.length > 0xFFFF) {
            return CompletableFuture.failedFuture(new MalformedBindingException("an AOR of " + name.length + " bytes"));
        }
        byte[] body = new byte[2 + name.length + change.length];
        body[0] = (byte) (name.length >>> 8);
        body[1] = (byte) name.length;
        System.arraycopy(name, 0, body, 2, name.length);
        System.arraycopy(change, 0, body, 2 + name.length, change.length);
        return operation(new OpHeader(OpHeader.Op.UPDATE, Id.hash(aor), -1), RecordsBody.CHANGE_TYPE, body, false,
                outcome -> updated(aor, outcome));
    }

    /** An update's answer: the record it carries and the rules' answer ({@link RecordsBody#UPDATED_TYPE}). */
    private static Updated updated(String aor, PeerAnswer outcome) {
        if (!RecordsBody.UPDATED_TYPE.equals(outcome.contentType())) {
            throw new DhtException(Reason.UNREACHABLE, "an update answer without the rules' answer: " + outcome.status()
                    + " " + outcome.reason());
        }
        RecordsBody.Updated body;
        try {
            body = RecordsBody.updated(outcome.body());
        } catch (MalformedBindingException e) {
            throw new DhtException(Reason.UNREACHABLE, "an update answer with a bad body: " + e.getMessage());
        }
        PeerAnswer carried = new PeerAnswer(outcome.status(), outcome.reason(), outcome.responder(), outcome.links(),
                body.contentType(), body.body());
        return new Updated(record(aor, carried), outcome.status() == 200, body.answer());
    }

    /** The record an update's answer carries: a set, or the replica's copy of the record written. */
    private static BindingSet record(String aor, PeerAnswer outcome) {
        if (!RecordsBody.TYPE.equals(outcome.contentType())) {
            return record(aor, outcome, "update");
        }
        var records = RecordsBody.decode(outcome.body());
        return records.isEmpty() || records.get(0).isRemoved() ? BindingSet.absent(aor) : records.get(0).set();
    }

    /** The binding set a get's 200 or a put's 412 carries; none means the AOR has no record. */
    private static BindingSet record(String aor, PeerAnswer outcome, String what) {
        if (outcome.body().length == 0) {
            return BindingSet.absent(aor);
        }
        try {
            return BindingCodec.decode(outcome.body());
        } catch (MalformedBindingException e) {
            throw new DhtException(Reason.UNREACHABLE, "a " + what + " answer with a bad body: " + e.getMessage());
        }
    }

    @Override
    public CompletionStage<Boolean> remove(String aor, long version) {
        counters.increment("bryan.removes");
        return operation(new OpHeader(OpHeader.Op.REMOVE, Id.hash(aor), version), "", new byte[0], false,
                outcome -> outcome.status() == 200);
    }

    private <T> CompletionStage<T> operation(OpHeader op, String contentType, byte[] body, boolean idempotent,
                                             Function<PeerAnswer, T> read) {
        if (closed) {
            return CompletableFuture.failedFuture(new DhtException(Reason.CLOSED, peer.self() + " is closed"));
        }
        return places.onLoop(() -> RoutedCall.forUser(places.placeFor(op.key()), new OpsBody.Op(op, contentType, body),
                idempotent, peer.settings().operationTimeout()).run().thenApply(read))
                .whenComplete((result, failure) -> {
                    if (failure != null) {
                        counters.increment("bryan.operation.failures");
                    }
                });
    }

    @Override
    public Set<String> levels() {
        return Set.of("bryan.records", "bryan.range.permille", "bryan.range.ppm", "bryan.places", "bryan.members",
                "bryan.members.large");
    }

    @Override
    public Map<String, Long> metrics() {
        var all = new TreeMap<String, Long>(counters.snapshot("bryan.gets", "bryan.puts", "bryan.updates", "bryan.removes",
                "bryan.operation.failures", "bryan.lookup.hops", "bryan.redirects", "bryan.replica.failures",
                "bryan.replica.batches", "bryan.copies.carried", "bryan.requests.in", "bryan.requests.out", "bryan.peers.failed",
                "bryan.places.refused", "bryan.refused", "bryan.one-hop", "bryan.one-hop.redirects", "bryan.one-hop.fallbacks", "bryan.operation.hops",
                ReplayGuard.REPLAYED, ReplayGuard.STALE));
        all.put("bryan.records", places.records());
        long ppm = places.rangePpm();
        all.put("bryan.range.permille", ppm < 0 ? -1 : ppm / 1000);
        all.put("bryan.range.ppm", ppm);
        all.put("bryan.places", (long) places.places().size());
        all.put("bryan.members", (long) places.view().size());
        all.put("bryan.members.large", places.view().isLarge() ? 1L : 0L);
        return all;
    }

    /**
     * Leaves gracefully, every place at once (its records to its first successor on another peer,
     * Expires: 0 to its neighbours), waiting a few request deadlines at most.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        CompletableFuture<Void> left = places.onLoop(() -> all(p -> p.membership().leave()));
        closed = true;
        try {
            left.get(3 * peer.settings().requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            counters.increment("bryan.leave.incomplete"); // the neighbours repair as after a failure
        }
        peer.link().close();
        places.shutdownLoop();
    }

    /**
     * Stops the peer without a word to the others, as a killed process would: its neighbours find
     * out by its silence, and what it held is out of the ring's reach. For tests and the overlay
     * simulator; a deployment kills the process.
     */
    public void crash() {
        closed = true;
        peer.loop().execute(() -> places.places().forEach(p -> p.membership().stop()));
        peer.link().close();
        places.shutdownLoop();
    }
}
