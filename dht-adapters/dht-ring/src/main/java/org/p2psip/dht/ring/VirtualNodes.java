package org.p2psip.dht.ring;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The places one physical node takes on the ring (virtual nodes): place 0 is the hash of its
 * address, the identifier a node with one place takes; place i > 0 the hash of
 * {@code address + "#" + i}. With a single place per node the key space is shared badly among few
 * nodes (two nodes: one owned 0.88 of the ring); with 64 the largest share among N nodes stays
 * within 1.5/N. Each place is a full ring member of its own ({@link FingerTable},
 * {@link Membership}, {@link org.p2psip.dht.ring.store.Store}); the places of one node share its
 * loop and its link. Thread-safe.
 */
public final class VirtualNodes {

    /** Ids of every address asked for, by count of places: a peer's id is checked on every message. */
    private static final ConcurrentHashMap<String, Set<Id>> KNOWN = new ConcurrentHashMap<>();
    private static final int KNOWN_MAX = 4096;

    private VirtualNodes() {
    }

    /** The id of place {@code i} of the node at {@code address}. */
    public static Id id(String address, int i) {
        return i == 0 ? Id.hash(address) : Id.hash(address + "#" + i);
    }

    /** The ids of the {@code count} places of the node at {@code address}, place 0 first. */
    public static List<Id> ids(String address, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("a node takes at least 1 place, not " + count);
        }
        var ids = new ArrayList<Id>(count);
        for (int i = 0; i < count; i++) {
            ids.add(id(address, i));
        }
        return ids;
    }

    /**
     * Starts a node's places on {@code loop}, one after another: the first takes its place as a
     * single node would ({@link Membership#start}), each other one joins beside it
     * ({@link Membership#startBeside}) once the one before it joined, and so finds its neighbours
     * among the places already there. Chord's way: its places joining all at once take one
     * successor and sort themselves out one stabilisation at a time (four nodes of 64 places own
     * their ranges in about 50 s in turn, twice that side by side).
     */
    public static void startInTurn(List<Membership> places, String bootstrap, List<String> members, NodeThread loop) {
        loop.execute(() -> {
            places.get(0).start(bootstrap, members);
            startAfter(places, 1, members, loop);
        });
    }

    private static void startAfter(List<Membership> places, int i, List<String> members, NodeThread loop) {
        if (i == places.size()) {
            return;
        }
        places.get(i - 1).joined().whenComplete((ok, failure) -> loop.execute(() -> {
            if (failure == null) {
                places.get(i).startBeside(places.get(0).self(), members);
                startAfter(places, i + 1, members, loop);
            }
        }));
    }

    /**
     * Starts a node's places on {@code loop} side by side: the first as a single node would, every
     * other one beside it at once when it joined. Bryan's way: each of its joins waits for the
     * owner's admission and the records handed with it, so in turn 32 places of four peers took
     * about 60 s to own their ranges and 64 places three minutes; side by side, 15 s and 50 s.
     */
    public static void startSideBySide(List<Membership> places, String bootstrap, List<String> members, NodeThread loop) {
        Membership first = places.get(0);
        loop.execute(() -> {
            first.start(bootstrap, members);
            first.joined().whenComplete((ok, failure) -> loop.execute(() -> {
                if (failure == null) {
                    places.subList(1, places.size()).forEach(p -> p.startBeside(first.self(), members));
                }
            }));
        });
    }

    /**
     * The place of {@code places} an operation on {@code key} starts from: one that joined and owns
     * it, else the joined one whose id precedes it most closely (its routing has the fewest steps
     * left), else the first. A place not yet started has no peers and would take itself for a ring
     * of one, the owner of every key. On the loop.
     */
    public static int startingPlace(List<Membership> places, Id key) {
        // ownership first, by comparisons alone: distances are BigInteger arithmetic, two per place,
        // which on every operation of a node of 64 places cost a fifth of a REGISTER's allocation
        for (int i = 0; i < places.size(); i++) {
            Membership place = places.get(i);
            if (place.joined().isDone() && place.table().owns(key)) {
                return i;
            }
        }
        int closest = 0;
        BigInteger best = places.get(0).self().id().distanceTo(key);
        for (int i = 1; i < places.size(); i++) {
            Membership place = places.get(i);
            if (!place.joined().isDone()) {
                continue;
            }
            BigInteger distance = place.self().id().distanceTo(key);
            if (distance.compareTo(best) < 0) {
                closest = i;
                best = distance;
            }
        }
        return closest;
    }

    /**
     * How many of a node's {@code places}, from the first, own their ranges ({@link
     * Membership#placed}): those a view of the whole ring ({@link Members}) maps keys to. On the loop.
     */
    public static int placed(List<Membership> places) {
        int count = 0;
        while (count < places.size() && places.get(count).placed().isDone()
                && !places.get(count).placed().isCompletedExceptionally()) {
            count++;
        }
        return count;
    }

    /**
     * The share of the ring a node's {@code places} own, in millionths: the sum over those that
     * joined and know their range; -1 when none does. A place not yet started counts for nothing
     * (alone, it would count for the whole ring). Thread-safe.
     */
    public static long rangePpm(List<Membership> places) {
        long sum = 0;
        boolean known = false;
        for (Membership place : places) {
            long ppm = place.joined().isDone() ? place.table().rangePpm() : -1;
            if (ppm >= 0) {
                sum += ppm;
                known = true;
            }
        }
        return known ? sum : -1;
    }

    /**
     * Whether {@code id} is one of the {@code count} places of the node at {@code address}: the
     * check that a peer names an id its address may take. Cached per address (a bounded cache:
     * it is cleared when it grows past a few thousand addresses).
     */
    public static boolean isPlaceOf(Id id, String address, int count) {
        if (count == 1) {
            return id.equals(Id.hash(address));
        }
        if (KNOWN.size() > KNOWN_MAX) {
            KNOWN.clear();
        }
        return KNOWN.computeIfAbsent(count + " " + address, k -> Set.copyOf(ids(address, count))).contains(id);
    }
}
