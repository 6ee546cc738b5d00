package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;

/** Lookups on a 32-node in-process ring reach the key's true successor in O(log N) steps. */
class RoutingTest {

    private static final int NODES = 32;
    private static final int KEYS = 10_000;
    private Ring ring;

    @AfterEach
    void close() {
        ring.close();
    }

    @Test
    void everyLookupReachesTheOwnerABruteForceSearchNamesInAtMostLog2NMedianHops() {
        ring = Ring.of(NODES, Clock.systemUTC());
        awaitFingersFixed();
        var random = new Random(42);
        int[] hops = new int[KEYS];
        for (int start = 0; start < KEYS; start += 1000) {
            List<CompletableFuture<Route>> routes = new ArrayList<>();
            List<Id> keys = new ArrayList<>();
            for (int i = start; i < start + 1000; i++) {
                Id key = new Id(new BigInteger(Id.BITS, random));
                keys.add(key);
                ChordDht from = ring.nodes.get(random.nextInt(NODES));
                routes.add(Ring.lookup(from, key).toCompletableFuture());
            }
            for (int i = 0; i < keys.size(); i++) {
                Route route = Ring.get(routes.get(i));
                assertEquals(ring.owner(keys.get(i)), route.owner(), "owner of key " + keys.get(i));
                hops[start + i] = route.hops();
            }
        }
        Arrays.sort(hops);
        int median = hops[KEYS / 2];
        System.out.printf("RoutingTest: %d nodes, %d lookups, mean hops %.2f, median %d, max %d%n",
                NODES, KEYS, Arrays.stream(hops).average().orElse(0), median, hops[KEYS - 1]);
        assertTrue(median <= 5, "median hops " + median + " exceeds log2(" + NODES + ") = 5");
        long hopSum = ring.nodes.stream().mapToLong(n -> n.metrics().get("chord.lookup.hops")).sum();
        assertEquals(Arrays.stream(hops).sum(), hopSum, "the hop metric counts exactly the lookups' hops");
    }

    @Test
    void eachNodeReportsTheShareOfTheRingItOwns() {
        ring = Ring.of(8, Clock.systemUTC());
        ring.awaitSettled();
        List<ChordDht> sorted = ring.byId();
        BigInteger circle = BigInteger.ONE.shiftLeft(Id.BITS);
        long sum = 0;
        for (int i = 0; i < sorted.size(); i++) {
            BigInteger self = sorted.get(i).self().id().value();
            BigInteger predecessor = sorted.get((i + sorted.size() - 1) % sorted.size()).self().id().value();
            long expected = self.subtract(predecessor).mod(circle).multiply(BigInteger.valueOf(1000)).divide(circle).longValue();
            long reported = sorted.get(i).metrics().get("chord.range.permille");
            assertEquals(expected, reported, "the share of node " + i + " in id order");
            sum += reported;
        }
        // each share is rounded down: together they make the whole ring less at most one per node
        assertTrue(sum > 1000 - sorted.size() && sum <= 1000, "the shares add up to " + sum);
    }

    /** Fingers are fixed in ascending order, so the last (half the ring away) being right means a full round. */
    private void awaitFingersFixed() {
        Ring.awaitTrue("every node's farthest finger fixed", () -> ring.nodes.stream().allMatch(node -> {
            NodeRef expected = ring.owner(node.self().id().plusPowerOfTwo(Id.BITS - 1));
            return expected.equals(Ring.get(Ring.farFinger(node)));
        }), Duration.ofSeconds(30));
    }
}
