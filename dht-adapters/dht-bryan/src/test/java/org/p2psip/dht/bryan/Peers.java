package org.p2psip.dht.bryan;

import org.p2psip.dht.contract.DhtContract;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.p2psip.config.Config;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.Members.Member;
import org.p2psip.dht.ring.Neighbours;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.store.Record;

/** A ring of in-process peers for tests, with short timers and ways to wait on the ring's state. */
final class Peers implements AutoCloseable {

    static final String SECRET = "test-secret";
    final InProcessPeerNetwork network = new InProcessPeerNetwork();
    final List<BryanDht> live = new ArrayList<>();
    private final Clock clock;
    private final Map<String, String> extra;

    Peers(Clock clock) {
        this(clock, Map.of());
    }

    /** Peers whose configuration also has {@code extra} (options a test varies). */
    Peers(Clock clock, Map<String, String> extra) {
        this.clock = clock;
        this.extra = extra;
    }

    Config config(String bootstrap) {
        Config config = Config.empty().with("p2psip.overlay.secret", SECRET).with("p2psip.bryan.bootstrap", bootstrap)
                .with("p2psip.bryan.stabilize-interval", "100ms").with("p2psip.bryan.fix-fingers-interval", "50ms")
                .with("p2psip.bryan.request-timeout", "300ms").with("p2psip.bryan.operation-timeout", "8s")
                .with("p2psip.bryan.places", "1"); // these tests follow each peer's one place; PlacesTest takes several
        for (var e : extra.entrySet()) {
            config = config.with(e.getKey(), e.getValue());
        }
        return config;
    }

    static Peers ring(int count, Clock clock) {
        return ring(count, clock, Map.of());
    }

    static Peers ring(int count, Clock clock, Map<String, String> extra) {
        var peers = new Peers(clock, extra);
        for (int i = 0; i < count; i++) {
            peers.add(25200 + i);
        }
        peers.awaitStable();
        return peers;
    }

    /** Starts a peer at 127.0.0.1:port, joining through the first live peer. */
    BryanDht add(int port) {
        return add(port, live.isEmpty() ? "" : live.get(0).self().address());
    }

    /** A peer on {@code port} joining through {@code bootstrap} (empty: configured as the founder). */
    BryanDht add(int port, String bootstrap) {
        BryanDht peer = PeerInsides.start(network.link("127.0.0.1:" + port), config(bootstrap), clock, DhtContract.ADD_CONTACT);
        live.add(peer);
        return peer;
    }

    void crash(BryanDht peer) {
        live.remove(peer);
        peer.crash();
    }

    /** Waits until every live peer has joined and names its true predecessor and successor. */
    void awaitStable() {
        await(this::stable, "the ring of " + live.size() + " to stabilise: " + describe());
    }

    /**
     * Waits until the ring is stable and every live peer lists as many successors as the ring
     * has other peers, up to the configured 4: stable() looks at the first successor only, and a
     * peer with a short list copies to, and routes round, fewer peers than a test expects.
     */
    void awaitFullLists() {
        awaitStable();
        int full = Math.min(4, live.size() - 1);
        await(() -> live.stream().allMatch(p -> neighbours(p).successors().size() >= full),
                "every peer to list " + full + " successors: " + describe());
    }

    /**
     * Waits until every live peer's successor list names the next peers of the ring in order (up
     * to the configured 4): writes made before copy to the replicas a stale list names, which a
     * double crash then leaves as the only holders (until the owners' next full copy).
     */
    void awaitTrueLists() {
        awaitStable();
        await(this::trueLists, "every peer to list its true successors: " + describe());
    }

    private boolean trueLists() {
        List<BryanDht> sorted = live.stream().sorted(Comparator.comparing(p -> p.self().id())).toList();
        int k = Math.min(4, sorted.size() - 1);
        for (int i = 0; i < sorted.size(); i++) {
            var expected = new ArrayList<NodeRef>();
            for (int j = 1; j <= k; j++) {
                expected.add(sorted.get((i + j) % sorted.size()).self());
            }
            List<NodeRef> listed = neighbours(sorted.get(i)).successors();
            if (listed.size() < k || !listed.subList(0, k).equals(expected)) {
                return false;
            }
        }
        return true;
    }

    boolean stable() {
        List<BryanDht> sorted = live.stream().sorted(Comparator.comparing(p -> p.self().id())).toList();
        for (int i = 0; i < sorted.size(); i++) {
            BryanDht p = sorted.get(i);
            if (!p.joined().toCompletableFuture().isDone()) {
                return false;
            }
            var n = neighbours(p);
            NodeRef next = sorted.get((i + 1) % sorted.size()).self();
            NodeRef previous = sorted.get((i + sorted.size() - 1) % sorted.size()).self();
            if (sorted.size() > 1 && (n.successors().isEmpty() || !n.successors().get(0).equals(next)
                    || !previous.equals(n.predecessor()))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Waits until every place of every peer knows its range and the ranges add up to the ring (no
     * gap, no overlap: each place's predecessor is the place before it), and every peer settled.
     */
    void awaitWholeRing() {
        long started = System.nanoTime();
        long[] said = {started};
        try {
            Peers.await(() -> {
                if (System.nanoTime() - said[0] > 10_000_000_000L) {
                    said[0] = System.nanoTime();
                    System.out.printf("bryan places: after %.0f s, %s; %s%n", (said[0] - started) / 1e9, lastSeen(), progress());
                }
                return ownWholeRing(live);
            }, "the places of " + live.size() + " peers to own the whole ring", Duration.ofMinutes(6));
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; last seen: " + lastSeen() + ";" + progress(), e);
        }
        System.out.printf("bryan places: %d peers own the whole ring after %.1f s%n", live.size(),
                (System.nanoTime() - started) / 1e9);
        for (BryanDht p : live) {
            try {
                p.settled().toCompletableFuture().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError(p.self() + " did not settle", e);
            }
        }
    }

    /**
     * Whether every place of {@code ring} knows its range and the ranges add up to the ring (no gap,
     * no overlap: each place's predecessor is the place before it). Read off the loops: the shares are
     * thread-safe.
     */
    static boolean ownWholeRing(List<BryanDht> ring) {
        long sum = 0;
        int places = 0;
        for (BryanDht peer : ring) {
            for (BryanPeer place : PeerInsides.places(peer)) {
                long ppm = place.links().table().rangePpm();
                if (ppm < 0) {
                    return false;
                }
                sum += ppm;
                places++;
            }
        }
        return sum <= Id.PPM && sum > Id.PPM - places;
    }

    /** The first place that knows no range yet, else how much of the ring the places own. */
    private String lastSeen() {
        for (BryanDht peer : live) {
            for (BryanPeer place : PeerInsides.places(peer)) {
                if (place.links().table().rangePpm() < 0) {
                    boolean joined = place.joined().isDone();
                    return place.self() + " knows no range yet, joined " + joined
                            + (joined ? Peers.<String>read(peer, any -> describe(place)) : "");
                }
            }
        }
        return "the places own " + live.stream().mapToLong(p -> p.metrics().get("bryan.range.ppm")).sum() + " ppm";
    }

    static String describe(BryanPeer place) {
        var table = place.links().table();
        return " (predecessor " + table.predecessor() + ", awaiting " + table.awaitingRecords() + ", successors "
                + table.successors().stream().limit(3).toList() + ")";
    }

    /** How far the places got, and what the peers counted: what a test that gave up waiting needs to say. */
    private String progress() {
        var text = new StringBuilder();
        for (BryanDht peer : live) {
            long joined = PeerInsides.places(peer).stream().filter(p -> p.joined().isDone()).count();
            var c = PeerInsides.peer(peer).counters();
            text.append(String.format(" [%s joined %d, requests out %d, join retries %d, retries %d, admitted %d,"
                            + " suspected %d, refused %d, places refused %d]", peer.self().address(), joined,
                    c.get("bryan.requests.out"), c.get("bryan.join.retries"), c.get("bryan.retries"),
                    c.get("bryan.admitted"), c.get("bryan.suspected"), c.get("bryan.refused"),
                    c.get("bryan.places.refused")));
        }
        return text.toString();
    }

    /**
     * Waits until every live peer's view of the overlay names every live peer, and no other, with
     * all its places: what one hop routes by once the ring is whole. A view that merely holds every
     * peer may still carry the places a member gossiped before they owned their ranges (on a quiet
     * machine the ring is whole within a round: views then named 1 or 3 of a peer's 8 places), and
     * maps their keys to the places after them, which redirect.
     */
    void awaitViews() {
        await(this::viewsWhole, "every peer's view to name the " + live.size() + " peers with all their places");
    }

    private boolean viewsWhole() {
        Map<String, Integer> places = live.stream()
                .collect(Collectors.toMap(p -> p.self().address(), p -> PeerInsides.places(p).size()));
        return live.stream().allMatch(p -> places.equals(read(p, first -> first.view().entries().stream()
                .collect(Collectors.toMap(Member::address, Member::places)))));
    }

    /** The live peer responsible for {@code aor}: the first clockwise from its resource-ID. */
    BryanDht responsibleFor(String aor) {
        Id key = Id.hash(aor);
        return live.stream().min(Comparator.comparing(p -> key.distanceTo(p.self().id()))).orElseThrow();
    }

    /** {@code p}'s predecessor (null if none known) and its successors, nearest first. */
    static Neighbours neighbours(BryanDht p) {
        return read(p, peer -> new Neighbours(peer.links().table().predecessor(), peer.links().table().successors()));
    }

    /** Whether {@code p} holds {@code aor}'s record (responsible or replica), not removed. */
    static boolean holds(BryanDht p, String aor) {
        return read(p, peer -> {
            Record held = peer.store().record(Id.hash(aor));
            return held != null && !held.isRemoved();
        });
    }

    /** Reads {@code p}'s state on its loop, where the state lives. */
    static <T> T read(BryanDht p, Function<BryanPeer, T> read) {
        BryanPeer peer = PeerInsides.peer(p);
        try {
            return peer.onLoop(() -> CompletableFuture.completedFuture(read.apply(peer))).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private String describe() {
        var text = new StringBuilder();
        for (BryanDht p : live) {
            text.append("\n ").append(p.self()).append(" -> ").append(neighbours(p));
        }
        return text.toString();
    }

    /** Polls {@code condition} until it holds, for at most a minute; the message says what was awaited. */
    static void await(BooleanSupplier condition, String what) {
        await(condition, what, Duration.ofSeconds(60));
    }

    /** Polls {@code condition} until it holds, for at most {@code patience}; the message says what was awaited. */
    static void await(BooleanSupplier condition, String what, Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("gave up waiting for " + what);
            }
            try {
                Thread.sleep(20); // a polling period, not an assumption about how long the work takes
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    @Override
    public void close() {
        new ArrayList<>(live).forEach(BryanDht::crash);
        live.clear();
        network.close();
    }
}
