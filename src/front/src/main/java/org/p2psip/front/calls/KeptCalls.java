package org.p2psip.front.calls;

import gov.nist.javax.sip.address.SipUri;
import gov.nist.javax.sip.header.HeaderFactoryImpl;
import gov.nist.javax.sip.header.RetryAfter;
import gov.nist.javax.sip.header.Route;
import gov.nist.javax.sip.header.SIPHeader;
import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import java.net.InetSocketAddress;
import java.text.ParseException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import javax.sip.InvalidArgumentException;
import javax.sip.SipException;
import javax.sip.header.RouteHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import org.p2psip.front.nodes.Node;
import org.p2psip.front.nodes.Nodes;
import org.p2psip.front.status.FrontStats;
import org.p2psip.front.wire.Addresses;
import org.p2psip.front.wire.Branches;
import org.p2psip.front.wire.Listeners;
import org.p2psip.front.wire.Outlet;
import org.p2psip.front.wire.ViaPath;

/**
 * The calls and in-dialog requests whose transaction state the front keeps (stateful mode), by
 * the keys their messages are matched with: the caller's transaction by the front's hash of its
 * branch ({@link Branches}), the front's own client transactions by their branches, which start
 * with {@link #BRANCH_PREFIX}. Also the parts they share: the hops, the front's Via and
 * Record-Route, its own answers. Bounded: at most {@code max} calls and requests, and a call is
 * forgotten after the INVITE time-out whatever its state.
 *
 * <p>Every method but {@link #owns} runs on the one thread of the front's UDP event loop (callers
 * on other threads hand work to it), so the calls and their state machines need no locks.
 */
public final class KeptCalls {

    /** The user part of the front's Record-Route in a dialog it keeps: a Route naming it brings the request here. */
    public static final String USER = "p2psip-kept";
    public static final String BRANCH_PREFIX = Branches.PREFIX + "kept-";

    private static final HeaderFactoryImpl HEADERS = new HeaderFactoryImpl();

    private final Listeners listeners;
    private final Outlet outlet;
    private final Timers timers;
    private final Executor loop;
    private final FrontStats stats;
    private final Nodes nodes;
    private final int retryAfterSeconds;
    private final long branchTimeoutMillis;
    private final long inviteTimeoutMillis;
    private final int max;
    private final String tagPrefix = Long.toHexString(System.nanoTime() ^ System.identityHashCode(this));
    private final AtomicLong sequence = new AtomicLong();
    /** The front's Record-Route and the lookup's Request-Disposition, parsed once: each call gets a copy. */
    private final SIPHeader ownRecordRoute;
    private final SIPHeader redirect;
    private final Map<String, KeptCall> calls = new ConcurrentHashMap<>();
    private final Map<String, KeptCall> callBranches = new ConcurrentHashMap<>();
    private final Map<String, KeptRequest> requests = new ConcurrentHashMap<>();
    private final Map<String, KeptRequest> requestBranches = new ConcurrentHashMap<>();

    public KeptCalls(Listeners listeners, Outlet outlet, Timers timers, Executor loop, FrontStats stats, Nodes nodes,
            int retryAfterSeconds, long branchTimeoutMillis, long inviteTimeoutMillis, int max) {
        this.listeners = listeners;
        this.outlet = outlet;
        this.timers = timers;
        this.loop = loop;
        this.stats = stats;
        this.nodes = nodes;
        this.retryAfterSeconds = retryAfterSeconds;
        this.branchTimeoutMillis = branchTimeoutMillis;
        this.inviteTimeoutMillis = inviteTimeoutMillis;
        this.max = max;
        try {
            this.ownRecordRoute = (SIPHeader) HEADERS.createHeader("Record-Route", ownUri());
            this.redirect = (SIPHeader) HEADERS.createHeader("Request-Disposition", "redirect");
        } catch (ParseException e) {
            throw new IllegalStateException("the front's own Record-Route is malformed", e);
        }
    }

    /** Whether {@code key} (the front's hash of a client's branch) names a call kept here. Thread-safe. */
    public boolean owns(String key) {
        return calls.containsKey(key);
    }

    /** Calls and requests kept now. */
    public int size() {
        return calls.size() + requests.size();
    }

    /** A new INVITE, from a UDP client, whose state the front keeps; {@code node} answers its lookup. */
    public void invite(SIPRequest invite, Node node) {
        loop.execute(() -> {
            String key = Branches.of(invite);
            KeptCall call = calls.get(key);
            if (call != null) {
                call.retransmitted();
                return;
            }
            if (size() >= max) {
                stats.answered503.increment();
                toCaller(invite, Outlet.UDP).send(unavailable(invite)); // admission control, as for forwarded ones
                return;
            }
            call = new KeptCall(this, key, invite, toCaller(invite, Outlet.UDP), node);
            calls.put(key, call);
            call.start();
        });
    }

    /** A request of a kept call's own transaction: the INVITE again, its CANCEL or the ACK of its failure answer. */
    public void sameTransaction(SIPRequest request, long connection) {
        loop.execute(() -> {
            KeptCall call = calls.get(Branches.of(request));
            if (call == null) {
                stats.dropped.increment(); // forgotten meanwhile
                return;
            }
            switch (request.getMethod()) {
                case Request.INVITE -> call.retransmitted();
                case Request.ACK -> call.acked();
                case Request.CANCEL -> {
                    toCaller(request, connection).send(answer(request, 200, "OK")); // §16.10: answered at once
                    call.cancel();
                }
                default -> stats.dropped.increment();
            }
        });
    }

    /**
     * A request within a dialog the front keeps (its Route named the front's kept URI, consumed
     * already): on to the next Route, or to its Request-URI, over UDP. An ACK and a re-INVITE go
     * statelessly (the ACK of a 2xx has no answer; a re-INVITE's ends are UAs that retransmit);
     * any other request is proxied statefully ({@link KeptRequest}).
     */
    public void inDialog(SIPRequest request, long connection) {
        loop.execute(() -> {
            String method = request.getMethod();
            InetSocketAddress next = nextHop(request);
            if (next == null) {
                if (!Request.ACK.equals(method)) {
                    toCaller(request, connection).send(answer(request, 502, "Next Hop Is Not an IP Address"));
                }
                stats.dropped.increment();
                return;
            }
            if (Request.ACK.equals(method) || Request.INVITE.equals(method)) {
                push(request, Branches.of(request));
                stats.keptRequests.increment();
                outlet.toClient(Outlet.UDP, next, request.encodeAsBytes("UDP"));
                return;
            }
            String key = Branches.of(request) + ' ' + method;
            KeptRequest kept = requests.get(key);
            if (kept != null) {
                kept.retransmitted();
                return;
            }
            if (size() >= max) {
                stats.answered503.increment();
                toCaller(request, connection).send(unavailable(request));
                return;
            }
            String branch = newBranch();
            kept = new KeptRequest(this, key, request, toCaller(request, connection), branch);
            requests.put(key, kept);
            requestBranches.put(branch, kept);
            stats.keptRequests.increment();
            SIPRequest forwarded = (SIPRequest) request.clone();
            push(forwarded, branch);
            kept.start(forwarded, toAddress(next));
        });
    }

    /** An answer whose top Via carries one of the front's kept branches; false if no kept transaction has it. */
    public boolean onResponse(SIPResponse response) {
        String branch = response.getTopmostVia().getBranch();
        if (!branch.startsWith(BRANCH_PREFIX)) {
            return false;
        }
        loop.execute(() -> {
            KeptCall call = callBranches.get(branch);
            KeptRequest request = call == null ? requestBranches.get(branch) : null;
            if (call != null && call.onResponse(branch, response)) {
                return;
            }
            if (request != null) {
                request.onResponse(response);
                return;
            }
            stats.dropped.increment(); // an answer for a transaction forgotten
        });
        return true;
    }

    /** The node of some lookups was found dead: their callers hear 503 now. */
    public void abandon(Node node) {
        loop.execute(() -> calls.values().forEach(call -> call.nodeLost(node)));
    }

    /** Forgets calls older than the INVITE time-out (Timer C's bound), whatever their state. */
    public void expire() {
        loop.execute(() -> {
            long now = timers.nowMillis();
            for (KeptCall call : calls.values()) {
                if (now - call.startMillis > inviteTimeoutMillis) {
                    call.drop();
                    forget(call);
                    stats.expired.increment();
                }
            }
        });
    }

    // --- what the calls and requests share ---

    Timers timers() {
        return timers;
    }

    FrontStats stats() {
        return stats;
    }

    long branchTimeoutMillis() {
        return branchTimeoutMillis;
    }

    void branchOpened(String branch, KeptCall call) {
        callBranches.put(branch, call);
    }

    void heard(Node node) {
        nodes.heard(node);
    }

    void forget(KeptCall call) {
        calls.remove(call.key, call);
        callBranches.values().removeIf(c -> c == call);
    }

    void forget(KeptRequest request) {
        requests.remove(request.key, request);
        requestBranches.remove(request.branch, request);
    }

    /**
     * The INVITE as it leaves the front: to the node for its lookup ({@code target} null), or to
     * a target, with its Request-URI and, if {@code recordRoute}, the front's Record-Route. Always
     * with a Via of the front's and a branch of its own.
     */
    SIPRequest outgoing(SIPRequest invite, KeptTarget target, boolean recordRoute) {
        SIPRequest request = (SIPRequest) invite.clone();
        try {
            if (target != null && !target.viaNode()) {
                request.setRequestURI((SipUri) target.uri().clone());
            }
            if (recordRoute) {
                request.addFirst((SIPHeader) ownRecordRoute.clone());
            }
        } catch (SipException e) {
            throw new IllegalStateException("the front's own Record-Route is malformed", e);
        }
        push(request, newBranch());
        return request;
    }

    /** Asks the node for the contacts rather than a proxied call (RFC 3841 §9.1). */
    void askRedirect(SIPRequest lookup) {
        lookup.setHeader((SIPHeader) redirect.clone());
    }

    /** Sends a CANCEL for a ringing contact on {@code hop}; its answer is matched by the INVITE's branch and the method. */
    NonInviteClient cancel(SIPRequest cancel, Hop hop) {
        var client = new NonInviteClient(cancel, hop, timers, new NonInviteClient.User() {
            @Override
            public void provisional(NonInviteClient t, SIPResponse r) {
            }

            @Override
            public void finalAnswer(NonInviteClient t, SIPResponse r) {
            }

            @Override
            public void timedOut(NonInviteClient t) {
            }
        });
        client.start();
        return client;
    }

    Hop toNode(Node node) {
        return new Hop() {
            @Override
            public void send(SIPMessage message) {
                outlet.toNode(node, message.encodeAsBytes("UDP"));
            }

            @Override
            public boolean reliable() {
                return false;
            }
        };
    }

    Hop toTarget(KeptTarget target) {
        return target.viaNode() ? toNode(target.node()) : toAddress(target.address());
    }

    private Hop toAddress(InetSocketAddress address) {
        return new Hop() {
            @Override
            public void send(SIPMessage message) {
                outlet.toClient(Outlet.UDP, address, message.encodeAsBytes("UDP"));
            }

            @Override
            public boolean reliable() {
                return false;
            }
        };
    }

    /** Where answers to {@code request} go: by its top Via (RFC 3261 §18.2.2), or over its client's connection. */
    private Hop toCaller(SIPRequest request, long connection) {
        Via via = request.getTopmostVia();
        InetSocketAddress address = connection == Outlet.UDP ? ViaPath.responseAddress(via) : null;
        String transport = outlet.transport(connection);
        return new Hop() {
            @Override
            public void send(SIPMessage message) {
                if (connection == Outlet.UDP && address == null) {
                    stats.dropped.increment(); // a Via naming no IP address: nowhere to answer
                    return;
                }
                outlet.toClient(connection, address, message.encodeAsBytes(transport));
            }

            @Override
            public boolean reliable() {
                return connection != Outlet.UDP;
            }
        };
    }

    /** An answer of the front's own to {@code request}, with a To tag of its own. */
    SIPResponse answer(SIPRequest request, int status, String reason) {
        SIPResponse response = request.createResponse(status, reason);
        if (response.getToTag() == null && response.getTo() != null) {
            try {
                response.getTo().setTag("p2psip-" + tagPrefix + "-" + sequence.incrementAndGet());
            } catch (ParseException e) {
                throw new IllegalStateException("the front's own tag is malformed", e);
            }
        }
        return response;
    }

    /** Seconds of the Retry-After of every 503 the front answers itself. */
    public int retryAfterSeconds() {
        return retryAfterSeconds;
    }

    /** 503 with Retry-After, as the front answers every request it cannot serve. */
    public SIPResponse unavailable(SIPRequest request) {
        SIPResponse response = answer(request, 503, "Service Unavailable");
        try {
            var retryAfter = new RetryAfter();
            retryAfter.setRetryAfter(retryAfterSeconds);
            response.setHeader(retryAfter);
        } catch (InvalidArgumentException e) {
            throw new IllegalArgumentException("Retry-After must be a positive number of seconds", e);
        }
        stats.answered503.increment();
        return response;
    }

    /** Takes the front's own Via off an answer that goes on towards the caller. */
    void stripOwnVia(SIPResponse response) {
        Via top = response.getTopmostVia();
        if (top != null && top.getBranch() != null && top.getBranch().startsWith(Branches.PREFIX)) {
            response.removeFirst(ViaHeader.NAME);
        }
    }

    private String newBranch() {
        return BRANCH_PREFIX + tagPrefix + "-" + Long.toHexString(sequence.incrementAndGet());
    }

    private void push(SIPRequest request, String branch) {
        try {
            request.addFirst(ViaPath.own(listeners.inner(), branch));
        } catch (ParseException | InvalidArgumentException | SipException e) {
            throw new IllegalStateException("the front's own Via is malformed", e);
        }
    }

    /** The front's URI in the dialogs it keeps: its inner address, where the nodes and the callees reach it. */
    private String ownUri() {
        InetSocketAddress self = listeners.inner();
        return "<sip:" + USER + "@" + Addresses.uriHost(self.getAddress().getHostAddress()) + ":" + self.getPort() + ";lr>";
    }

    /** The next hop of an in-dialog request: its top Route if it has one left (loose routing), else its Request-URI. */
    private static InetSocketAddress nextHop(SIPRequest request) {
        Route route = (Route) request.getHeader(RouteHeader.NAME);
        Object uri = route != null ? route.getAddress().getURI() : request.getRequestURI();
        return uri instanceof SipUri sip ? KeptTarget.udpAddress(sip) : null;
    }
}
