package org.p2psip.dht.ring;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * Every physical node of a small ring as this node knows it, and the owner of a key by that view
 * alone: what lets an operation go in one hop to its owner instead of an iterative lookup.
 * Dynamo and Cassandra route so: each node knows the membership and maps a key to its owner
 * locally; the iterative lookup stays for overlays too large for that.
 *
 * <p>The view is kept by gossip with heartbeats (van Renesse, Minsky, Hayden, "A Gossip-Style
 * Failure Detection Service", Middleware 1998): each member counts its own heartbeat up, a node
 * swaps its entries with a random member once a round, the higher heartbeat of an entry wins, and
 * an entry whose heartbeat has not risen for {@link #EXPIRY_ROUNDS} rounds is forgotten, then kept
 * as gone for as long again so that an old copy of it cannot bring it back. The ring seeds the
 * view with the addresses its places meet ({@link #learn}); those count as members but make the
 * view incomplete until gossip names their places.
 *
 * <p>Bounded: the view holds at most {@code maxNodes + 1} members. A node that knows more than
 * {@code maxNodes}, or hears from one that does, keeps no routable view for
 * {@link #LARGE_HOLD_ROUNDS} rounds: it sends no gossip and answers with none, so that a large
 * overlay pays little for this, and its operations take the iterative lookup.
 *
 * <p>Not thread-safe: used on the node's loop, except {@link #size} and {@link #isLarge()}.
 */
public final class Members {

    /** Rounds without a rise of its heartbeat after which a member is forgotten. */
    public static final int EXPIRY_ROUNDS = 12;
    /**
     * Rounds a node keeps no routable view after it learnt that the overlay has more than max-nodes
     * members (10 minutes at the default 2 s round). Then it gossips again: its view, emptied by
     * expiry meanwhile, grows past max-nodes within a few rounds, and those rounds' messages are
     * what a large overlay pays for this every hold.
     */
    public static final int LARGE_HOLD_ROUNDS = 300;

    /**
     * One member as gossip carries it: its address, how many of its places (from place 0) own
     * their ranges, the id of its place 0 and its heartbeat (0: learnt from the ring, not from
     * gossip; its places unknown). Immutable.
     */
    public record Member(String address, int places, Id first, long heartbeat) {
        public Member {
            if (places < 0) {
                throw new IllegalArgumentException("a member has 0 or more places, not " + places);
            }
        }
    }

    /** A member and what this node noted of it. */
    private static final class Entry {
        Member member;
        long risenNanos;
        boolean suspected;

        Entry(Member member, long risenNanos) {
            this.member = member;
            this.risenNanos = risenNanos;
        }
    }

    private record Gone(long heartbeat, long sinceNanos) {
    }

    private final String self;
    private final int maxNodes;
    private final long roundNanos;
    private final LongSupplier nanos;
    private final Random random;
    private final Map<String, Entry> live = new HashMap<>();
    private final Map<String, Gone> gone = new HashMap<>();
    /** Place id to the place, over the members that gossip named; null when it must be built again. */
    private TreeMap<Id, NodeRef> owners;
    private long largeUntilNanos;
    /** Members suspected now: while none is, a lookup of the view reads no entry. */
    private int suspects;
    private volatile int size;
    private volatile boolean large;

    /**
     * @param self     this node's entry (its heartbeat is its first)
     * @param maxNodes members at most for which keys are mapped to their owners here (0: never)
     * @param round    how long a gossip round is, in the {@code nanos} clock's nanoseconds
     */
    public Members(Member self, int maxNodes, long round, LongSupplier nanos, long seed) {
        if (maxNodes < 0) {
            throw new IllegalArgumentException("one hop takes 0 or more nodes, not " + maxNodes);
        }
        this.self = self.address();
        this.maxNodes = maxNodes;
        this.roundNanos = round;
        this.nanos = nanos;
        this.random = new Random(seed);
        live.put(self.address(), new Entry(self, nanos.getAsLong()));
        noteSize();
    }

    /** Members in the view, this node included. Thread-safe. */
    public int size() {
        return size;
    }

    /** Whether this node keeps no routable view, the overlay being larger than max-nodes. Thread-safe. */
    public boolean isLarge() {
        return large;
    }

    /** Whether the node at {@code address} gossips its view: it runs a build that keeps one. */
    public boolean gossips(String address) {
        Entry entry = live.get(address);
        return entry != null && entry.member.heartbeat() > 0;
    }

    /** This node's own entry. */
    public Member self() {
        return live.get(self).member;
    }

    /**
     * A new round: this node's heartbeat rises (to {@code millis} when that is higher) and it says
     * how many of its places own their ranges; members silent too long are forgotten.
     */
    public void beat(long millis, int places) {
        Entry own = live.get(self);
        Member was = own.member;
        own.member = new Member(self, places, was.first(), Math.max(was.heartbeat() + 1, millis));
        if (places != was.places()) {
            owners = null;
        }
        expire();
    }

    /**
     * A new round for a node of {@code places}: its heartbeat rises with the count of them that own
     * their ranges ({@link VirtualNodes#placed}), and the nodes their successor lists name join the view.
     * On the loop.
     */
    public void beat(long millis, List<Membership> places) {
        beat(millis, VirtualNodes.placed(places));
        for (Membership place : places) {
            place.table().successors().forEach(n -> learn(n.address()));
        }
    }

    private void expire() {
        long now = nanos.getAsLong();
        long expiry = EXPIRY_ROUNDS * roundNanos;
        List<String> silent = live.entrySet().stream()
                .filter(e -> !e.getKey().equals(self) && now - e.getValue().risenNanos > expiry)
                .map(Map.Entry::getKey).toList();
        silent.forEach(this::forget);
        gone.values().removeIf(g -> now - g.sinceNanos() > expiry);
    }

    /** Forgets {@code address} now (as when it fell silent); only a higher heartbeat brings it back. */
    public void forget(String address) {
        Entry entry = address.equals(self) ? null : live.remove(address);
        if (entry != null) {
            unsuspect(entry);
            gone.put(address, new Gone(entry.member.heartbeat(), nanos.getAsLong()));
            owners = null;
            noteSize();
        }
    }

    /**
     * Takes an address the ring named (a successor, a place that answered): a member whose places
     * gossip will tell, and until it does, a view that routes nothing. Also one forgotten lately:
     * after a partition healed, the ring names the other side before any gossip crosses.
     */
    public void learn(String address) {
        if (maxNodes == 0 || live.containsKey(address) || isLarge()) {
            return;
        }
        add(new Member(address, 0, Id.hash(address), 0));
    }

    /**
     * Takes the entries of another node's view ({@code senderLarge}: it keeps none, the overlay is
     * too large): the higher heartbeat of each wins. An entry of this node with a higher heartbeat
     * than its own (its previous life's, on a clock ahead) raises its own above it.
     */
    public void merge(List<Member> received, boolean senderLarge) {
        if (maxNodes == 0) {
            return;
        }
        if (senderLarge) {
            goLarge();
            return;
        }
        for (Member m : received) {
            if (m.address().equals(self)) {
                Entry own = live.get(self);
                if (m.heartbeat() > own.member.heartbeat()) {
                    own.member = new Member(self, own.member.places(), own.member.first(), m.heartbeat() + 1);
                }
                continue;
            }
            Gone was = gone.get(m.address());
            if (was != null && m.heartbeat() <= was.heartbeat()) {
                continue;
            }
            Entry held = live.get(m.address());
            if (held == null) {
                gone.remove(m.address());
                add(m);
            } else if (m.heartbeat() > held.member.heartbeat()) {
                // the keys move when its places do, or when gossip names it first
                if (held.member.heartbeat() == 0 || m.places() != held.member.places()
                        || !m.first().equals(held.member.first())) {
                    owners = null;
                }
                held.member = m;
                held.risenNanos = nanos.getAsLong();
            }
        }
    }

    /**
     * Takes the view {@code from} itself sent ({@link #merge}), in a swap or an answer: it lives,
     * suspected or not ({@link #heardFrom}).
     */
    public void swapped(String from, List<Member> received, boolean senderLarge) {
        merge(received, senderLarge);
        heardFrom(from);
    }

    /** {@code address} itself sent this node its view, or answered its own: it lives, suspected or not. */
    public void heardFrom(String address) {
        Entry entry = live.get(address);
        if (entry != null) {
            unsuspect(entry);
        }
    }

    private void unsuspect(Entry entry) {
        if (entry.suspected) {
            entry.suspected = false;
            suspects--;
        }
    }

    private void add(Member m) {
        if (live.size() > maxNodes) {
            goLarge();
            return;
        }
        live.put(m.address(), new Entry(m, nanos.getAsLong()));
        owners = null;
        noteSize();
        if (live.size() > maxNodes) {
            goLarge();
        }
    }

    private void goLarge() {
        largeUntilNanos = nanos.getAsLong() + LARGE_HOLD_ROUNDS * roundNanos;
        large = true;
    }

    private void noteSize() {
        size = live.size();
    }

    /** Whether this node keeps a view to route by and to gossip: it knows at most max-nodes members and heard of no more lately. */
    public boolean routes() {
        if (large && live.size() <= maxNodes && nanos.getAsLong() - largeUntilNanos > 0) {
            large = false;
        }
        return !large && maxNodes > 0;
    }

    /**
     * {@code address} did not take a request sent by this view, or the ring dropped it: the keys
     * its places own are left to the ring's lookup until it is heard from directly ({@link
     * #heardFrom}): a risen heartbeat is no sign of life, since a crashed member's last beats
     * still travel from view to view. Mapped to the next member instead, its keys would reach a
     * node that does not own them yet, which names the suspect again.
     */
    public void suspect(String address) {
        Entry entry = live.get(address);
        if (entry != null && !address.equals(self) && !entry.suspected) {
            entry.suspected = true;
            suspects++;
        }
    }

    /** The entries to gossip: this node's view, or none when it keeps none. */
    public List<Member> entries() {
        if (!routes()) {
            return List.of();
        }
        return live.values().stream().map(e -> e.member).toList();
    }

    /**
     * A member other than this node to gossip with this round, or null when none is known or no
     * view is kept. Every other round a suspect when there is one: a swap with it is what clears
     * a false suspicion.
     */
    public String gossipTarget() {
        if (!routes() || live.size() < 2) {
            return null;
        }
        boolean probe = suspects > 0 && random.nextBoolean();
        var others = new ArrayList<String>(live.size());
        live.entrySet().stream().filter(e -> !e.getKey().equals(self) && (!probe || e.getValue().suspected))
                .map(Map.Entry::getKey).sorted().forEach(others::add);
        return others.get(random.nextInt(others.size()));
    }

    /**
     * The place that owns {@code key} by this view: the first place at or after it, among the
     * places of the members gossip named; null when this view routes nothing (too large, one hop
     * off, or a member's places still unknown: the view is not whole).
     */
    public NodeRef owner(Id key) {
        if (!routes()) {
            return null;
        }
        if (owners == null) {
            owners = build();
        }
        if (owners.isEmpty()) {
            return null;
        }
        var at = owners.ceilingEntry(key);
        NodeRef owner = at != null ? at.getValue() : owners.firstEntry().getValue();
        return suspects > 0 && live.get(owner.address()).suspected ? null : owner;
    }

    /** Every place of every member, or none when a member's places are unknown yet. */
    private TreeMap<Id, NodeRef> build() {
        var map = new TreeMap<Id, NodeRef>();
        for (Entry e : live.values()) {
            Member m = e.member;
            if (m.heartbeat() == 0) {
                return new TreeMap<>();
            }
            for (int i = 0; i < m.places(); i++) {
                Id id = i == 0 ? m.first() : VirtualNodes.id(m.address(), i);
                map.put(id, new NodeRef(id, m.address()));
            }
        }
        return map;
    }
}
