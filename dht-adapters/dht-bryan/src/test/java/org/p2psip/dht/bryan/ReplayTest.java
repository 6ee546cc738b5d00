package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingCodec;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.store.Record;

/**
 * Peer requests captured and sent again are refused: each signed request is served at most once,
 * and only while fresh. The requests come from a peer of the overlay outside the ring (it knows
 * the secret and stamps as a peer does), or are captured from a ring peer on the wire, and reach
 * the ring through the in-process network as new SIP transactions, as a replay would.
 */
class ReplayTest {

    private static final String AOR = "sip:alice@example.com";
    private static final Duration WINDOW = BryanOptions.REPLAY_WINDOW.defaultValue();
    private Peers ring;
    private PeerLink outsider;
    private final NodeRef stranger = NodeRef.at("127.0.0.1:25299");
    private final Signature signature = new Signature(Peers.SECRET);

    @BeforeEach
    void start() {
        ring = Peers.ring(2, Clock.systemUTC());
        outsider = ring.network.link(stranger.address());
    }

    @AfterEach
    void stop() {
        ring.close();
    }

    @Test
    void aPeerRequestDeliveredTwiceIsServedOnce() throws Exception {
        BryanDht owner = ring.responsibleFor(AOR);
        PeerRequest put = signature.sign(new Stamper(Clock.systemUTC()).stamp(request(
                new OpHeader(OpHeader.Op.PUT, Id.hash(AOR), 0), RecordsBody.SET_TYPE, BindingCodec.encode(set(AOR, 0)))));
        assertEquals(200, send(owner, put).status(), "the put the first time");
        BindingSet written = owner.get(AOR).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertTrue(owner.remove(AOR, written.version()).toCompletableFuture().get(10, TimeUnit.SECONDS));

        PeerResponse again = send(owner, put);
        assertEquals(403, again.status(), again.reason());
        assertTrue(again.reason().startsWith("Replayed Request"), again.reason());
        for (BryanDht peer : ring.live) {
            assertFalse(Peers.holds(peer, AOR), "the replayed put brought the removed binding back at " + peer.self());
        }
        assertEquals(1L, owner.metrics().get(ReplayGuard.REPLAYED), "replays refused and counted");
    }

    @Test
    void aRingPeersRequestCapturedOnTheWireAndSentAgainIsRefused() throws Exception {
        BryanDht sender = ring.live.get(0);
        BryanDht receiver = ring.live.get(1);
        PeerRequest captured = ring.network.captureNext(sender.self().address(), receiver.self().address())
                .get(10, TimeUnit.SECONDS);
        var before = Peers.neighbours(receiver);
        PeerResponse answer = send(receiver, captured);
        assertEquals(403, answer.status(), answer.reason());
        assertTrue(answer.reason().startsWith("Replayed Request"), answer.reason());
        assertEquals(before, Peers.neighbours(receiver));
        assertEquals(1L, receiver.metrics().get(ReplayGuard.REPLAYED));
    }

    @Test
    void aRequestSentOutsideTheWindowIsRefused() throws Exception {
        BryanDht target = ring.live.get(0);
        for (Duration skew : new Duration[] {WINDOW.plusSeconds(5).negated(), WINDOW.plusSeconds(5)}) {
            var skewed = new Stamper(Clock.offset(Clock.systemUTC(), skew));
            PeerResponse answer = send(target, signature.sign(skewed.stamp(copyOf(AOR))));
            assertEquals(403, answer.status(), "sent " + skew + " from the receiver's clock: " + answer.reason());
            assertTrue(answer.reason().startsWith("Stale Request"), answer.reason());
            assertFalse(Peers.holds(target, AOR), "a stale copy was stored");
        }
        assertEquals(2L, target.metrics().get(ReplayGuard.STALE));
        var fresh = new Stamper(Clock.systemUTC());
        assertEquals(200, send(target, signature.sign(fresh.stamp(copyOf(AOR)))).status(), "the control case: fresh");
        assertTrue(Peers.holds(target, AOR));
    }

    @Test
    void requestsReorderedWithinTheBitmapAreAllAccepted() throws Exception {
        BryanDht target = ring.live.get(0);
        var stamper = new Stamper(Clock.systemUTC());
        var early = new ArrayList<PeerRequest>(); // sequences 1..20
        for (int i = 0; i < 20; i++) {
            early.add(signature.sign(stamper.stamp(copyOf("sip:user" + i + "@example.com"))));
        }
        skipTo(stamper, SequenceWindow.REACH - 1);
        PeerRequest newest = signature.sign(stamper.stamp(copyOf(AOR))); // REACH: sequence 1 is the lowest reached
        assertEquals(200, send(target, newest).status());
        Collections.shuffle(early, new Random(3));
        for (PeerRequest late : early) {
            PeerResponse answer = send(target, late);
            assertEquals(200, answer.status(), "a request overtaken by " + (SequenceWindow.REACH - 1) + " at most: " + answer.reason());
        }
        for (int i = 0; i < 20; i++) {
            assertTrue(Peers.holds(target, "sip:user" + i + "@example.com"), "user" + i + "'s copy was not stored");
        }
    }

    @Test
    void aSequenceBelowTheBitmapsReachIsRefused() throws Exception {
        BryanDht target = ring.live.get(0);
        var stamper = new Stamper(Clock.systemUTC());
        PeerRequest first = signature.sign(stamper.stamp(copyOf("sip:bob@example.com"))); // sequence 1
        skipTo(stamper, SequenceWindow.REACH);
        assertEquals(200, send(target, signature.sign(stamper.stamp(copyOf(AOR)))).status()); // REACH + 1
        PeerResponse answer = send(target, first);
        assertEquals(403, answer.status(), answer.reason());
        assertTrue(answer.reason().startsWith("Stale Request"), answer.reason());
        assertFalse(Peers.holds(target, "sip:bob@example.com"));
        assertEquals(1L, target.metrics().get(ReplayGuard.STALE));
    }

    @Test
    void aRestartedSenderWithANewEpochIsAccepted() throws Exception {
        BryanDht target = ring.live.get(0);
        var firstLife = new Stamper(Clock.systemUTC());
        PeerRequest oldCopy = signature.sign(firstLife.stamp(copyOf("sip:bob@example.com")));
        assertEquals(200, send(target, oldCopy).status());
        for (int i = 0; i < 5; i++) {
            assertEquals(200, send(target, signature.sign(firstLife.stamp(copyOf("sip:user" + i + "@example.com")))).status());
        }
        var secondLife = new Stamper(Clock.systemUTC()); // the same peer started again: sequences from 1, a new epoch
        PeerResponse answer = send(target, signature.sign(secondLife.stamp(copyOf(AOR))));
        assertEquals(200, answer.status(), "the restarted sender's first request: " + answer.reason());
        assertTrue(Peers.holds(target, AOR));
        assertEquals(403, send(target, oldCopy).status(), "a request of the first life sent again");
    }

    /** Stamps and drops requests until the stamper's last sequence is {@code sequence}. */
    private void skipTo(Stamper stamper, long sequence) {
        PeerRequest unused = request(null, "", new byte[0]);
        long last;
        do {
            last = StampHeader.parse(stamper.stamp(unused).values(StampHeader.NAME).get(0)).sequence();
        } while (last < sequence);
    }

    private static BindingSet set(String aor, long version) {
        long until = System.currentTimeMillis() + 3_600_000;
        return new BindingSet(aor, version, until, List.of(new Binding(aor, "sip:a@10.0.0.9", until, 1000, "c", 1, List.of(), "", 0)));
    }

    private PeerRequest copyOf(String aor) {
        byte[] body = RecordsBody.encode(List.of(Record.of(set(aor, 1), 99)), 8000).get(0);
        return request(new OpHeader(OpHeader.Op.COPY, null, -1), RecordsBody.TYPE, body);
    }

    private PeerRequest request(OpHeader op, String type, byte[] body) {
        var headers = new ArrayList<PeerHeader>();
        headers.add(new PeerHeader(PeerIdHeader.NAME, new PeerIdHeader(stranger, "p2psip", 3).print()));
        if (op != null) {
            headers.add(new PeerHeader(OpHeader.NAME, op.print()));
        }
        return new PeerRequest(PeerUri.print(stranger), 30, headers, type, body);
    }

    private PeerResponse send(BryanDht to, PeerRequest request) throws Exception {
        return outsider.send(to.self().address(), request, Duration.ofSeconds(5)).toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
    }
}
