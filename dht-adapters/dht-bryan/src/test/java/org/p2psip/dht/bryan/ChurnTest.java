package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Dht;

/**
 * Eight peers: every resource lands on the peer responsible for its ID; two neighbouring peers
 * crash without a word and nothing registered is lost once the ring has repaired; a newcomer
 * takes over what it is now responsible for.
 */
class ChurnTest extends RingTest {

    private static final int AORS = 200;
    /** In-process addresses (no socket is opened): the newcomer's falls where it owns resources. */
    private static final int NEWCOMER_PORT = 25240;

    @Test
    void resourcesLandOnTheirPeerSurviveTwoCrashesAndMoveToANewcomer() throws Exception {
        ring = Peers.ring(8, Clock.systemUTC());
        // a write made while a list was stale was copied to a peer that is no replica any more, and the
        // two crashes below then left that peer its only holder: the test is about a settled ring
        ring.awaitTrueLists();
        var writes = new ArrayList<CompletableFuture<Boolean>>();
        for (int i = 0; i < AORS; i++) {
            Dht through = ring.live.get(i % ring.live.size());
            writes.add(through.put(oneBinding(aor(i), "10.0.0.1")).toCompletableFuture());
        }
        for (var write : writes) {
            assertTrue(write.get(20, TimeUnit.SECONDS));
        }
        everyResourceIsHeldByItsResponsiblePeer();

        // two neighbours at once: a resource's responsible peer and its first replica
        List<BryanDht> sorted = ring.live.stream().sorted(Comparator.comparing(p -> p.self().id())).toList();
        List<BryanDht> crashed = List.of(sorted.get(3), sorted.get(4));
        long onCrashed = IntStream.range(0, AORS).filter(i -> crashed.contains(ring.responsibleFor(aor(i)))).count();
        assertTrue(onCrashed > 0, "the crashed peers were responsible for nothing: the test would prove nothing");
        crashed.forEach(ring::crash);
        ring.awaitStable();
        awaitEveryResourceOnItsResponsiblePeer(
                "every resource back on its responsible peer, the " + onCrashed + " of the crashed peers included");
        everyResourceIsReadableThrough(ring.live.get(ring.live.size() - 1));

        BryanDht newcomer = ring.add(NEWCOMER_PORT);
        ring.awaitStable();
        long owned = IntStream.range(0, AORS).filter(i -> ring.responsibleFor(aor(i)) == newcomer).count();
        assertTrue(owned > 0, "the newcomer " + newcomer.self() + " owns no resource: the take-over would prove nothing");
        awaitEveryResourceOnItsResponsiblePeer("the newcomer to hold its " + owned + " resources");
        everyResourceIsReadableThrough(newcomer);
    }

    /**
     * A peer crashed and started again at once on its address (as a supervisor restarts a process):
     * the same Peer-ID, nothing stored, its old self not yet given up by its neighbours. Its
     * resources must come back to it from the replicas, or reads through it would miss them.
     */
    @Test
    void aPeerRestartedAtOnceOnItsAddressWithNothingStoredLosesNoResource() throws Exception {
        ring = Peers.ring(4, Clock.systemUTC());
        var writes = new ArrayList<CompletableFuture<Boolean>>();
        for (int i = 0; i < AORS; i++) {
            writes.add(ring.live.get(i % ring.live.size()).put(oneBinding(aor(i), "10.0.0.1")).toCompletableFuture());
        }
        for (var write : writes) {
            assertTrue(write.get(20, TimeUnit.SECONDS));
        }
        BryanDht victim = ring.live.stream().sorted(Comparator.comparing(p -> p.self().id())).toList().get(1);
        long itsOwn = IntStream.range(0, AORS).filter(i -> ring.responsibleFor(aor(i)) == victim).count();
        assertTrue(itsOwn > 0, "the restarted peer was responsible for nothing: the test would prove nothing");
        int port = Integer.parseInt(victim.self().address().substring(victim.self().address().lastIndexOf(':') + 1));
        ring.crash(victim);
        BryanDht again = ring.add(port);
        ring.awaitStable();
        for (BryanDht through : ring.live) {
            everyResourceIsReadableThrough(through);
        }
        Peers.await(this::everyResourceHeldByItsResponsiblePeer, "the restarted peer to hold its " + itsOwn + " resources");
        assertEquals(victim.self(), again.self(), "the same address gives the same Peer-ID");
    }

    /**
     * The founder (no bootstrap, as node 0 of a deployment) crashed and started again with the same
     * configuration: it must be admitted to the ring that carried on, through the members it lists
     * (overlay addresses, 1000 above the SIP ports as deploy lays them out), not start its own.
     */
    @Test
    void aFounderRestartedWithItsConfigurationJoinsTheRingThatCarriedOn() throws Exception {
        threePeersListingTheirMembers();
        BryanDht founder = ring.live.get(0);
        ring.crash(founder);
        BryanDht again = ring.add(25200, "");
        ring.awaitStable();
        for (BryanDht through : ring.live) {
            everyResourceIsReadableThrough(through);
        }
        assertEquals(1L, again.metrics().get("bryan.founder.joined"), "admitted through a member, not alone");
    }

    /** A peer whose bootstrap is down (as after a crash of node 0) is admitted through another member. */
    @Test
    void aPeerWhoseBootstrapIsDownJoinsThroughAnotherMember() throws Exception {
        threePeersListingTheirMembers();
        ring.crash(ring.live.get(0)); // the bootstrap of every other peer
        ring.awaitStable();
        BryanDht again = ring.add(25203, "127.0.0.1:25200");
        ring.awaitStable();
        for (BryanDht through : ring.live) {
            everyResourceIsReadableThrough(through);
        }
        assertTrue(again.metrics().get("bryan.join.retries") >= 1, "its bootstrap was tried first");
    }

    /**
     * Three peers configured as deploy lays them out (the first the founder, all listed as members:
     * overlay addresses 1000 above the SIP ports), every AOR written.
     */
    private void threePeersListingTheirMembers() throws Exception {
        ring = new Peers(Clock.systemUTC(), Map.of("p2psip.overlay.members", "127.0.0.1:26200,127.0.0.1:26201,127.0.0.1:26202"));
        for (int port = 25200; port < 25203; port++) {
            ring.add(port);
        }
        ring.awaitStable();
        var writes = new ArrayList<CompletableFuture<Boolean>>();
        for (int i = 0; i < AORS; i++) {
            writes.add(ring.live.get(i % ring.live.size()).put(oneBinding(aor(i), "10.0.0.1")).toCompletableFuture());
        }
        for (var write : writes) {
            assertTrue(write.get(20, TimeUnit.SECONDS));
        }
    }

    private void everyResourceIsHeldByItsResponsiblePeer() {
        for (int i = 0; i < AORS; i++) {
            BryanDht responsible = ring.responsibleFor(aor(i));
            assertTrue(Peers.holds(responsible, aor(i)), aor(i) + " is not held by its responsible peer " + responsible.self());
        }
    }

    private boolean everyResourceHeldByItsResponsiblePeer() {
        return IntStream.range(0, AORS).allMatch(i -> Peers.holds(ring.responsibleFor(aor(i)), aor(i)));
    }

    /** Waits for {@link #everyResourceHeldByItsResponsiblePeer}; failing, says which are not and who holds them. */
    private void awaitEveryResourceOnItsResponsiblePeer(String what) {
        try {
            Peers.await(this::everyResourceHeldByItsResponsiblePeer, what);
        } catch (AssertionError e) {
            var missing = new StringBuilder();
            for (int i = 0; i < AORS; i++) {
                BryanDht responsible = ring.responsibleFor(aor(i));
                if (!Peers.holds(responsible, aor(i))) {
                    int at = i;
                    missing.append("\n ").append(aor(i)).append(" on ").append(responsible.self()).append(" ")
                            .append(Peers.neighbours(responsible)).append(", held by ")
                            .append(ring.live.stream().filter(p -> Peers.holds(p, aor(at))).map(BryanDht::self).toList());
                }
            }
            throw new AssertionError(e.getMessage() + "; not on their responsible peer:" + missing, e);
        }
    }

    /**
     * Every AOR reads back, through {@code reader}, with exactly the contact written. The reads go
     * out at once, as a node's users' do, rather than each waiting for the one before.
     */
    private void everyResourceIsReadableThrough(Dht reader) throws Exception {
        var reads = IntStream.range(0, AORS).mapToObj(i -> reader.get(aor(i)).toCompletableFuture()).toList();
        for (int i = 0; i < AORS; i++) {
            BindingSet got = reads.get(i).get(20, TimeUnit.SECONDS);
            assertEquals(List.of("sip:u" + i + "@10.0.0.1"), got.bindings().stream().map(Binding::contact).toList(), aor(i));
        }
    }

    private static String aor(int i) {
        return "sip:u" + i + "@example.com";
    }
}
