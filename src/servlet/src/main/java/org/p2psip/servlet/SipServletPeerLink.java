package org.p2psip.servlet;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import javax.servlet.sip.Address;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServletMessage;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;
import org.p2psip.dht.bryan.AbstractPeerLink;
import org.p2psip.dht.bryan.Deadlines;
import org.p2psip.dht.bryan.PeerHeader;
import org.p2psip.dht.bryan.PeerRequest;
import org.p2psip.dht.bryan.PeerResponse;
import org.p2psip.intake.SessionRelease;

/**
 * Peer REGISTERs through the SIP servlet container itself: sent as UAC requests made with the
 * {@link SipFactory} to {@code sip:host:port;transport=tcp;peer-id=PEER-ID} (the target place), their responses handed back by {@link BryanSipServlet#doResponse}, and
 * received ones answered with {@code createResponse}. The container's own parser reads every
 * message; only the DHT-* header values are the overlay's to read. Thread-safe.
 *
 * <p>Each request gets its own application session, ended once the final response came or the
 * deadline passed, so that peer traffic leaves nothing behind in the container.
 */
final class SipServletPeerLink extends AbstractPeerLink {

    private static final Logger LOG = System.getLogger(SipServletPeerLink.class.getName());
    static final String PEER_HEADER = "DHT-PeerID";

    private final SipFactory factory;
    private final SessionRelease sessions;
    private final Map<String, CompletableFuture<PeerResponse>> pending = new ConcurrentHashMap<>();
    /** Appended to a target's request URI: empty for UDP, the container's default. */
    private final String uriParameters;

    SipServletPeerLink(SipFactory factory, String address, String transport, SessionRelease sessions) {
        super(address);
        this.factory = factory;
        this.sessions = sessions;
        this.uriParameters = transport.equals("udp") ? "" : ";transport=" + transport;
    }

    @Override
    public CompletionStage<PeerResponse> send(String target, PeerRequest request, Duration deadline) {
        if (isClosed()) {
            return CompletableFuture.failedFuture(new DhtException(Reason.CLOSED, "the peer link is closed"));
        }
        SipApplicationSession session = factory.createApplicationSession();
        var answer = new CompletableFuture<PeerResponse>();
        try {
            Address peer = factory.createAddress(request.peerUri());
            SipServletRequest register = factory.createRequest(session, "REGISTER", peer, peer);
            register.setRequestURI(factory.createURI("sip:" + target + uriParameters + (request.target().isEmpty() ? ""
                    : ";" + PeerRequest.TARGET_PARAMETER + "=" + request.target())));
            if (request.expires() >= 0) {
                register.setExpires(request.expires());
            }
            for (PeerHeader h : request.headers()) {
                register.addHeader(h.name(), h.value());
            }
            if (request.body().length > 0) {
                register.setContent(request.body(), request.contentType());
            }
            String callId = register.getCallId();
            pending.put(callId, answer);
            answer.whenComplete((r, e) -> {
                pending.remove(callId, answer);
                release(session);
            });
            register.send();
        } catch (ServletParseException | IOException | RuntimeException e) {
            release(session);
            answer.completeExceptionally(new DhtException(Reason.UNREACHABLE, "cannot send a REGISTER to " + target + ": " + e, e));
        }
        return Deadlines.within(answer, target, deadline);
    }

    /** A response to one of this link's REGISTERs (provisional ones are ignored). */
    void answered(SipServletResponse response) {
        if (response.getStatus() < 200) {
            return;
        }
        CompletableFuture<PeerResponse> answer = pending.remove(response.getCallId());
        if (answer == null) {
            return; // too late: its deadline passed
        }
        try {
            var contacts = new ArrayList<String>();
            if (response.getStatus() / 100 == 3) {
                response.getAddressHeaders("Contact").forEachRemaining(a -> contacts.add(a.getURI().toString()));
            }
            String contact = String.join(", ", contacts);
            answer.complete(new PeerResponse(response.getStatus(), String.valueOf(response.getReasonPhrase()), contact,
                    dhtHeaders(response), contentType(response), body(response)));
        } catch (ServletParseException | IOException | RuntimeException e) {
            answer.completeExceptionally(new DhtException(Reason.UNREACHABLE, "unreadable peer answer: " + e, e));
        }
    }

    /** A peer REGISTER (it carries DHT-PeerID) reached this node: the overlay answers it. */
    void received(SipServletRequest request) {
        Handler serving = handler();
        if (serving == null) {
            send(request, PeerResponse.refusal(480, "Peer not started"));
            return;
        }
        PeerRequest peerRequest;
        try {
            peerRequest = new PeerRequest(request.getTo().getURI().toString(), request.getExpires(),
                    dhtHeaders(request), contentType(request), body(request), targetOf(request));
        } catch (IOException | RuntimeException e) {
            send(request, PeerResponse.refusal(400, "Unreadable peer REGISTER: " + e.getMessage()));
            return;
        }
        serving.handle(peerRequest).whenComplete((response, failure) -> send(request,
                failure == null ? response : PeerResponse.refusal(500, "Peer failed: " + failure)));
    }

    private void send(SipServletRequest request, PeerResponse answer) {
        try {
            SipServletResponse response = request.createResponse(answer.status(), answer.reason());
            for (String uri : answer.contact().split(",")) {
                if (!uri.isBlank()) {
                    response.addHeader("Contact", "<" + uri.trim() + ">");
                }
            }
            for (PeerHeader h : answer.headers()) {
                response.addHeader(h.name(), h.value());
            }
            if (answer.body().length > 0) {
                response.setContent(answer.body(), answer.contentType());
            }
            response.send();
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, "a peer answer could not be sent (the transaction ended?): {0}", e.toString());
        } finally {
            sessions.release(request);
        }
    }

    /** The target place's Peer-ID, the Request-URI's {@code peer-id} parameter; "" without one. */
    private static String targetOf(SipServletRequest request) {
        String place = request.getRequestURI().getParameter(PeerRequest.TARGET_PARAMETER);
        return place == null ? "" : place;
    }

    private static List<PeerHeader> dhtHeaders(SipServletMessage message) {
        var out = new ArrayList<PeerHeader>();
        for (Iterator<String> names = message.getHeaderNames(); names.hasNext(); ) {
            String name = names.next();
            if (name.toLowerCase(Locale.ROOT).startsWith("dht-")) {
                message.getHeaders(name).forEachRemaining(value -> out.add(new PeerHeader(name, value)));
            }
        }
        return out;
    }

    private static String contentType(SipServletMessage message) {
        String type = message.getContentType();
        if (type == null) {
            return "";
        }
        int semi = type.indexOf(';');
        return (semi < 0 ? type : type.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
    }

    private static byte[] body(SipServletMessage message) throws IOException {
        byte[] raw = message.getRawContent();
        return raw == null ? new byte[0] : raw;
    }

    private static void release(SipApplicationSession session) {
        try {
            session.invalidate();
        } catch (IllegalStateException alreadyInvalid) {
            // ended already
        }
    }

    @Override
    public void close() {
        super.close();
        pending.values().forEach(f -> f.completeExceptionally(new DhtException(Reason.CLOSED, "the peer link closed")));
    }
}
