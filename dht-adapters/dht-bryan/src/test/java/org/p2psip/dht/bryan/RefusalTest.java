package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;
import org.p2psip.dht.ring.store.Record;

/** Peer REGISTERs from outside the overlay, or malformed, get a clear SIP error and change nothing. */
class RefusalTest {

    private static final String AOR = "sip:mallory@example.com";
    private Peers ring;
    private BryanDht target;
    private PeerLink outsider;
    private final NodeRef stranger = NodeRef.at("127.0.0.1:25299");
    private final Stamper stamper = new Stamper(Clock.systemUTC());

    @BeforeEach
    void start() {
        ring = Peers.ring(2, Clock.systemUTC());
        target = ring.live.get(0);
        outsider = ring.network.link(stranger.address());
    }

    @AfterEach
    void stop() {
        ring.close();
    }

    @Test
    void aCopySignedWithAnotherSecretIsAnswered403AndStoresNothing() throws Exception {
        PeerResponse answer = send(new Signature("not-the-secret").sign(copyOf(AOR)));
        assertEquals(403, answer.status(), answer.reason());
        assertTrue(answer.reason().contains("DHT-Auth"), answer.reason());
        assertFalse(Peers.holds(target, AOR));
    }

    @Test
    void aRequestWithoutDhtAuthIsAnswered403() throws Exception {
        assertEquals(403, send(copyOf(AOR)).status());
        assertFalse(Peers.holds(target, AOR));
    }

    @Test
    void aForgedStabilisationDoesNotMoveThePredecessor() throws Exception {
        var before = Peers.neighbours(target);
        PeerRequest notify = request(List.of(new PeerHeader(LinkHeader.NAME,
                new LinkHeader(target.self(), LinkHeader.Kind.S, 1, 3).print())), null, "", new byte[0]);
        assertEquals(403, send(new Signature("guess").sign(notify)).status());
        assertEquals(before, Peers.neighbours(target));
    }

    @Test
    void aMalformedLinkIsAnswered400NamingTheHeaderAndChangesNothing() throws Exception {
        var before = Peers.neighbours(target);
        String badLink = "<sip:" + target.self().id() + "@" + target.self().address() + ">;link=S0";
        PeerRequest notify = request(List.of(new PeerHeader(LinkHeader.NAME, badLink)), null, "", new byte[0]);
        PeerResponse answer = send(new Signature(Peers.SECRET).sign(notify));
        assertEquals(400, answer.status());
        assertTrue(answer.reason().contains("DHT-Link"), answer.reason());
        assertEquals(before, Peers.neighbours(target));
    }

    @Test
    void aPeerIdThatIsNotTheHashOfItsAddressIsAnswered400() throws Exception {
        String forged = "<sip:" + Id.hash("elsewhere") + "@" + stranger.address() + ">;algorithm=sha1;dht=Chord1.0;overlay=p2psip";
        var request = stamper.stamp(new PeerRequest("sip:" + Id.hash("elsewhere") + "@" + stranger.address(), 30,
                List.of(new PeerHeader(PeerIdHeader.NAME, forged)), "", new byte[0]));
        PeerResponse answer = send(new Signature(Peers.SECRET).sign(request));
        assertEquals(400, answer.status());
        assertTrue(answer.reason().contains("DHT-PeerID"), answer.reason());
    }

    @Test
    void aCopyWithABrokenBodyIsAnswered400AndStoresNothing() throws Exception {
        PeerRequest copy = request(List.of(), new OpHeader(OpHeader.Op.COPY, null, -1), RecordsBody.TYPE, new byte[] {0, 1, 2});
        PeerResponse answer = send(new Signature(Peers.SECRET).sign(copy));
        assertEquals(400, answer.status(), answer.reason());
    }

    @Test
    void aBatchWithOneBadOperationIsAnswered400AndActsOnNone() throws Exception {
        var set = new BindingSet(AOR, 0, System.currentTimeMillis() + 3_600_000,
                List.of(new Binding(AOR, "sip:m@10.0.0.9", System.currentTimeMillis() + 3_600_000, 1000, "c", 1, List.of(), "", 0)));
        var ops = List.of(new OpsBody.Op(new OpHeader(OpHeader.Op.PUT, Id.hash(AOR), 0), RecordsBody.SET_TYPE,
                        org.p2psip.dht.BindingCodec.encode(set)),
                new OpsBody.Op(new OpHeader(OpHeader.Op.FIND, Id.hash(AOR), -1), "", new byte[0]));
        PeerRequest batch = request(List.of(), new OpHeader(OpHeader.Op.BATCH, null, -1), OpsBody.OPS_TYPE,
                OpsBody.encodeOps(ops));
        PeerResponse answer = send(new Signature(Peers.SECRET).sign(batch));
        assertEquals(400, answer.status(), answer.reason());
        assertTrue(answer.reason().contains("Bad batch"), answer.reason());
        for (BryanDht peer : ring.live) {
            assertFalse(Peers.holds(peer, AOR), "the batch's good put was acted on at " + peer.self());
        }
    }

    @Test
    void aRequestWithoutDhtStampIsAnswered400NamingItAndStoresNothing() throws Exception {
        PeerRequest stamped = copyOf(AOR);
        PeerRequest unstamped = new PeerRequest(stamped.peerUri(), stamped.expires(), stamped.headers().stream()
                .filter(h -> !h.name().equals(StampHeader.NAME)).toList(), stamped.contentType(), stamped.body());
        PeerResponse answer = send(new Signature(Peers.SECRET).sign(unstamped));
        assertEquals(400, answer.status(), answer.reason());
        assertTrue(answer.reason().contains("DHT-Stamp"), answer.reason());
        assertFalse(Peers.holds(target, AOR));
    }

    @Test
    void aPeerOfTheOverlayIsHeard() throws Exception {
        PeerResponse answer = send(new Signature(Peers.SECRET).sign(copyOf(AOR)));
        assertEquals(200, answer.status(), answer.reason());
        assertTrue(Peers.holds(target, AOR), "the control case: the same copy, rightly signed, is stored");
    }

    private PeerRequest copyOf(String aor) {
        var set = new BindingSet(aor, 1, System.currentTimeMillis() + 3_600_000,
                List.of(new Binding(aor, "sip:m@10.0.0.9", System.currentTimeMillis() + 3_600_000, 1000, "c", 1, List.of(), "", 0)));
        byte[] body = RecordsBody.encode(List.of(Record.of(set, 99)), 8000).get(0);
        return request(List.of(), new OpHeader(OpHeader.Op.COPY, null, -1), RecordsBody.TYPE, body);
    }

    private PeerRequest request(List<PeerHeader> extra, OpHeader op, String type, byte[] body) {
        var headers = new ArrayList<PeerHeader>();
        headers.add(new PeerHeader(PeerIdHeader.NAME, new PeerIdHeader(stranger, "p2psip", 3).print()));
        headers.addAll(extra);
        if (op != null) {
            headers.add(new PeerHeader(OpHeader.NAME, op.print()));
        }
        return stamper.stamp(new PeerRequest(PeerUri.print(stranger), 30, headers, type, body));
    }

    private PeerResponse send(PeerRequest request) throws Exception {
        return outsider.send(target.self().address(), request, Duration.ofSeconds(5)).toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
    }
}
