package org.p2psip.dht.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class VirtualNodesTest {

    /** The addresses deploy/p2psip gives n nodes: 127.0.0.1, node i's port the base port plus i. */
    private static List<String> deployed(int base, int n) {
        return IntStream.range(0, n).mapToObj(i -> "127.0.0.1:" + (base + i)).toList();
    }

    /**
     * The share of the ring each of {@code addresses} owns, in millionths, once every node took
     * its {@code places} places and the ring settled: place p owns (its predecessor, p]. What a
     * settled ring's nodes report (their places' RoutingTable.rangePpm summed), computed
     * from the addresses alone. In the order of {@code addresses}.
     */
    private static Map<String, Long> sharesPpm(List<String> addresses, int places) {
        record Place(Id id, String address) {
        }
        var all = new ArrayList<Place>();
        for (String address : addresses) {
            VirtualNodes.ids(address, places).forEach(id -> all.add(new Place(id, address)));
        }
        all.sort(Comparator.comparing(Place::id));
        var shares = new LinkedHashMap<String, Long>();
        addresses.forEach(a -> shares.put(a, 0L));
        for (int i = 0; i < all.size(); i++) {
            Place p = all.get(i);
            Place before = all.get((i + all.size() - 1) % all.size());
            shares.merge(p.address(), before.id().ppmTo(p.id()), Long::sum);
        }
        return shares;
    }

    private static void assertEven(List<String> addresses, int places) {
        int n = addresses.size();
        Map<String, Long> shares = sharesPpm(addresses, places);
        long sum = shares.values().stream().mapToLong(Long::longValue).sum();
        // each place's share is rounded down: at most one millionth lost per place
        assertTrue(sum <= Id.PPM && sum >= Id.PPM - (long) n * places, "shares add up to the ring, not " + sum);
        long largest = shares.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        assertTrue(largest <= 1.5 * Id.PPM / n, "the largest share of " + n + " nodes with " + places
                + " places is within 1.5/" + n + " = " + 1.5 / n + ", not " + largest / 1e6 + ": " + shares);
    }

    @Test
    void placeZeroIsTheHashOfTheAddressAsAOnePlaceNodesIdAlwaysWas() {
        assertEquals(Id.hash("127.0.0.1:6070"), VirtualNodes.id("127.0.0.1:6070", 0));
        assertEquals(Id.hash("127.0.0.1:6070#5"), VirtualNodes.id("127.0.0.1:6070", 5));
        assertEquals(List.of(Id.hash("127.0.0.1:6070")), VirtualNodes.ids("127.0.0.1:6070", 1));
    }

    @Test
    void aPeerIdIsAcceptedForAnyPlaceOfItsAddressAndNoOther() {
        assertTrue(VirtualNodes.isPlaceOf(VirtualNodes.id("10.0.0.1:5070", 63), "10.0.0.1:5070", 64));
        assertFalse(VirtualNodes.isPlaceOf(VirtualNodes.id("10.0.0.1:5070", 64), "10.0.0.1:5070", 64));
        assertFalse(VirtualNodes.isPlaceOf(VirtualNodes.id("10.0.0.1:5070", 1), "10.0.0.2:5070", 64));
        assertFalse(VirtualNodes.isPlaceOf(VirtualNodes.id("10.0.0.1:5070", 1), "10.0.0.1:5070", 1));
    }

    @Test
    void fourDeployedNodesWith64PlacesEachOwnAtMostThreeEighths() {
        // the overlay ports deploy/p2psip gives by default (6070 = SIP 5070 + 1000), Bryan's SIP
        // ports (its ids hash the SIP address), and those of ChordNodesIT (SIP 25100)
        for (int base : List.of(6070, 5070, 26100, 25100, 26250, 25250)) {
            List<String> four = deployed(base, 4);
            Map<String, Long> shares = sharesPpm(four, 64);
            shares.values().forEach(s -> assertTrue(s <= 375_000, "a share of four nodes at " + base
                    + " is at most 0.375: " + shares));
            long sum = shares.values().stream().mapToLong(Long::longValue).sum();
            assertTrue(Math.abs(sum - Id.PPM) <= 4 * 64, "the shares add up to 1: " + sum);
        }
    }

    @Test
    void twoThreeAndEightNodesWith64PlacesEachOwnWithinOneAndAHalfTimesTheirFairShare() {
        for (int base : List.of(6070, 5070, 26100, 25100)) {
            for (int n : List.of(2, 3, 8)) {
                assertEven(deployed(base, n), 64);
            }
        }
    }

    @Test
    void withOnePlaceTwoNodesSplitTheRingBadly() {
        Map<String, Long> shares = sharesPpm(deployed(6070, 2), 1);
        long largest = shares.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        assertTrue(largest > 750_000, "the reason for places: one of two nodes at 6070 and 6071 owns "
                + largest / 1e6 + " of the ring with one place each");
    }
}
