package org.p2psip.front.calls;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import org.p2psip.front.nodes.Node;
import org.p2psip.front.nodes.Nodes;
import org.p2psip.front.status.FrontStats;
import org.p2psip.front.wire.Branches;
import org.p2psip.front.wire.FlowTokens;
import org.p2psip.front.wire.Listeners;
import org.p2psip.front.wire.Destination;
import org.p2psip.front.wire.ViaPath;

/**
 * The calls and in-dialog requests whose transaction state the front keeps (stateful mode), by
 * the keys their messages are matched with: the caller's transaction by the front's hash of its
 * branch ({@link Branches}), the front's own client transactions by their branches, which start
 * with {@link #BRANCH_PREFIX}. Also the parts they share: the hops, the front's Via and
 * Record-Route, its own answers. Every message is read where it lies ({@link Message}): what goes
 * on is spliced ({@link Splices}), what the front says itself is written from the bytes of what it
 * answers ({@link Answers}, {@link CancelAndAck}). Bounded: at most {@code max} calls and
 * requests, and a call is forgotten after the INVITE time-out whatever its state.
 *
 * <p>Every method but {@link #owns} runs on the one thread of the front's UDP event loop (callers
 * on other threads hand work to it), so the calls and their state machines need no locks.
 */
public final class KeptCalls {

    /** The user part of the front's Record-Route in a dialog it keeps: a Route naming it brings the request here. */
    public static final String USER = "p2psip-kept";
    public static final String BRANCH_PREFIX = Branches.PREFIX + "kept-";

    private final Listeners listeners;
    private final Destination outlet;
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
    /** The front's Record-Route line in the calls it keeps. */
    private final String ownRecordRoute;
    private final Map<String, KeptCall> calls = new ConcurrentHashMap<>();
    private final Map<String, KeptCall> callBranches = new ConcurrentHashMap<>();
    private final Map<String, KeptRequest> requests = new ConcurrentHashMap<>();
    private final Map<String, KeptRequest> requestBranches = new ConcurrentHashMap<>();
    /** The tokens naming the clients' TCP and TLS connections, shared with the forwarding path's Paths. */
    private final FlowTokens flows = new FlowTokens();

    public KeptCalls(Listeners listeners, Destination outlet, Timers timers, Executor loop, FrontStats stats, Nodes nodes,
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
        this.ownRecordRoute = "Record-Route: " + ownUri(Destination.UDP) + "\r\n";
    }

    /** Whether {@code key} (the front's hash of a client's branch) names a call kept here. Thread-safe. */
    public boolean owns(String key) {
        return calls.containsKey(key);
    }

    /** The flow tokens of this front: the forwarding path writes them in Paths, the kept calls read them back. */
    public FlowTokens flowTokens() {
        return flows;
    }

    /** Calls and requests kept now. */
    public int size() {
        return calls.size() + requests.size();
    }

    /**
     * A new INVITE whose state the front keeps; {@code node} answers its lookup. {@code key} is
     * the front's hash of its branch ({@link Branches}); the INVITE is as received, its top Via
     * stamped, Max-Forwards spent by one, the front's own Route consumed. {@code connection}: the
     * caller's TCP or TLS connection, where every answer goes, or {@link Destination#UDP}.
     */
    public void invite(Message invite, String key, Node node, long connection) {
        loop.execute(() -> {
            KeptCall call = calls.get(key);
            if (call != null) {
                call.retransmitted();
                return;
            }
            if (size() >= max) {
                stats.answered503.increment();
                toCaller(invite, connection).send(unavailable(invite)); // admission control, as for forwarded ones
                return;
            }
            call = new KeptCall(this, key, invite, toCaller(invite, connection), connection, node);
            calls.put(key, call);
            call.start();
        });
    }

    /** A request of a kept call's own transaction: the INVITE again, its CANCEL or the ACK of its failure answer. */
    public void sameTransaction(Message request, String key, long connection) {
        loop.execute(() -> {
            KeptCall call = calls.get(key);
            if (call == null) {
                stats.dropped.increment(); // forgotten meanwhile
                return;
            }
            switch (request.method) {
                case "INVITE" -> call.retransmitted();
                case "ACK" -> call.acked();
                case "CANCEL" -> {
                    toCaller(request, connection).send(answer(request, 200, "OK")); // §16.10: answered at once
                    call.cancel();
                }
                default -> stats.dropped.increment();
            }
        });
    }

    /**
     * A request within a dialog the front keeps (its Route named the front's kept URI, consumed
     * already): on to the next Route, or to its Request-URI, over UDP; or, where a leg of the
     * dialog is a client's TCP or TLS connection, down that connection. Such a dialog has two
     * Routes of the front's ({@link #recordRoute}): the second is consumed here too, and its
     * {@code flow} parameter, if any, names the connection the request goes down. An ACK and a
     * re-INVITE go statelessly (the ACK of a 2xx has no answer; a re-INVITE's ends are UAs that
     * retransmit); any other request is proxied statefully ({@link KeptRequest}). {@code key} is
     * the front's hash of its branch; {@code connection} the one it came on.
     */
    public void inDialog(Message received, String key, long connection) {
        loop.execute(() -> {
            String method = received.method;
            String flowToken = secondRouteFlow(received);
            Message request = flowToken == null ? received : Splices.withoutTopRoute(received);
            long flow = flowToken == null || flowToken.isEmpty() ? Destination.UDP : flows.connection(flowToken);
            if (flow < 0 || flow != Destination.UDP && !outlet.open(flow)) {
                stats.flowsFailed.increment(); // the other end's connection is gone
                if (!"ACK".equals(method)) {
                    toCaller(request, connection).send(answer(request, 430, "Flow Failed"));
                }
                return;
            }
            InetSocketAddress next = flow == Destination.UDP ? nextHop(request) : null;
            if (flow == Destination.UDP && next == null) {
                if (!"ACK".equals(method)) {
                    toCaller(request, connection).send(answer(request, 502, "Next Hop Is Not an IP Address"));
                }
                stats.dropped.increment();
                return;
            }
            TransactionPeer hop = flow == Destination.UDP ? toAddress(next) : toFlow(flow);
            String transport = outlet.transport(flow);
            if ("ACK".equals(method) || "INVITE".equals(method)) {
                stats.keptRequests.increment();
                hop.send(push(request, key, transport));
                return;
            }
            String requestKey = key + ' ' + method;
            KeptRequest kept = requests.get(requestKey);
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
            kept = new KeptRequest(this, requestKey, request, toCaller(request, connection), branch);
            requests.put(requestKey, kept);
            requestBranches.put(branch, kept);
            stats.keptRequests.increment();
            kept.start(push(request, branch, transport), hop);
        });
    }

    /** An answer whose top Via carries one of the front's kept branches; false if no kept transaction has it. */
    public boolean onResponse(Message response) {
        String branch = response.branch;
        if (branch == null || !branch.startsWith(BRANCH_PREFIX)) {
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
     * The INVITE as it leaves the front: to the node for its lookup ({@code target} null: with
     * {@code Request-Disposition: redirect}, RFC 3841 §9.1, so that the node answers with the
     * contacts), or to a target, with its Request-URI and the front's Record-Route. Always with a
     * Via of the front's and a branch of its own.
     */
    Message outgoing(Message invite, KeptTarget target, long callerConnection) {
        if (target == null) {
            return Splices.forwarded(invite, ownVia(newBranch(), "UDP") + "Request-Disposition: redirect\r\n", null,
                    "request-disposition");
        }
        String uri = target.viaNode() ? null : target.uri().text();
        String via = ownVia(newBranch(), outlet.transport(target.flow()));
        return Splices.forwarded(invite, via + recordRoute(callerConnection, target.flow()), uri, null);
    }

    /**
     * The front's Record-Route in a call it keeps: one URI when both ends are reached over UDP;
     * two when a leg is a client's TCP or TLS connection (double record-routing, as RFC 5658
     * describes for a proxy between transports), the callee's side on top. Each names the
     * connection of its side in a {@code flow} parameter, so whichever end sends a request of the
     * dialog, the second Route of the front's says where it goes ({@link #inDialog}).
     */
    private String recordRoute(long callerConnection, long calleeFlow) {
        if (callerConnection == Destination.UDP && calleeFlow == Destination.UDP) {
            return ownRecordRoute;
        }
        return "Record-Route: " + ownUri(calleeFlow) + "\r\nRecord-Route: " + ownUri(callerConnection) + "\r\n";
    }

    /**
     * The connection of this front's that a Route value names alone - a 302 contact's Path, a flow
     * of a client registered over TCP or TLS (RFC 5626) - or -1. A token of this front's whose
     * connection has closed still names it: ringing it then fails, and the call moves on.
     */
    long flowNamed(String route) {
        String uri = route.indexOf(',') >= 0 ? null : routeUri(route);
        SipUriText parsed = uri == null ? null : SipUriText.of(uri);
        if (parsed == null || !FlowTokens.looksLikeToken(parsed.user()) || !namesThisFront(parsed)) {
            return -1;
        }
        return flows.connection(parsed.user());
    }

    /**
     * The {@code flow} parameter of the request's top Route when that Route is the front's second
     * in a dialog it keeps ("" when it has none); null when the top Route is not the front's.
     */
    private String secondRouteFlow(Message request) {
        int route = request.header("route");
        String uri = route < 0 ? null : routeUri(request.lines.value(route));
        SipUriText parsed = uri == null ? null : SipUriText.of(uri);
        if (parsed == null || !USER.equals(parsed.user()) || !namesThisFront(parsed)) {
            return null;
        }
        for (String param : uri.split(";")) {
            if (param.startsWith("flow=")) {
                return param.substring(5);
            }
        }
        return "";
    }

    /** Whether {@code uri} is a sip: or sips: URI of one of this front's listeners. */
    private boolean namesThisFront(SipUriText uri) {
        return uri.sip() && listeners.named(ViaPath.strip(uri.host()), uri.port(), uri.secure());
    }

    /** Sends a CANCEL for a ringing contact on {@code hop}; its answer is matched by the INVITE's branch and the method. */
    NonInviteClient cancel(Message cancel, TransactionPeer hop) {
        var client = new NonInviteClient(cancel, hop, timers, new NonInviteClient.User() {
            @Override
            public void provisional(NonInviteClient t, Message r) {
            }

            @Override
            public void finalAnswer(NonInviteClient t, Message r) {
            }

            @Override
            public void timedOut(NonInviteClient t) {
            }
        });
        client.start();
        return client;
    }

    TransactionPeer toNode(Node node) {
        return new TransactionPeer() {
            @Override
            public boolean send(Message message) {
                outlet.toNode(node, message.bytes);
                return true;
            }

            @Override
            public boolean reliable() {
                return false;
            }
        };
    }

    TransactionPeer toTarget(KeptTarget target) {
        return target.viaNode() ? toNode(target.node()) : target.overFlow() ? toFlow(target.flow()) : toAddress(target.address());
    }

    /** Over UDP to {@code address}; null (a Via naming no IP address) takes nothing, counted as dropped. */
    private TransactionPeer toAddress(InetSocketAddress address) {
        return new TransactionPeer() {
            @Override
            public boolean send(Message message) {
                if (address == null) {
                    stats.dropped.increment(); // nowhere to send it
                } else {
                    outlet.toClient(Destination.UDP, address, message.bytes);
                }
                return true;
            }

            @Override
            public boolean reliable() {
                return false;
            }
        };
    }

    /** Down a client's TCP or TLS connection; a connection that has closed takes nothing (counted as dropped). */
    private TransactionPeer toFlow(long connection) {
        return new TransactionPeer() {
            @Override
            public boolean send(Message message) {
                if (!outlet.open(connection)) {
                    stats.dropped.increment();
                    return false;
                }
                outlet.toClient(connection, null, message.bytes);
                return true;
            }

            @Override
            public boolean reliable() {
                return true;
            }
        };
    }

    /** Where answers to {@code request} go: by its top Via (RFC 3261 §18.2.2), or over its client's connection. */
    private TransactionPeer toCaller(Message request, long connection) {
        return connection != Destination.UDP ? toFlow(connection) : toAddress(ViaPath.responseAddress(request.via.host,
                request.via.port, request.via.param("received"), request.via.param("rport")));
    }

    /** An answer of the front's own to {@code request}, with a To tag of its own. */
    Message answer(Message request, int status, String reason) {
        return Answers.of(request, status, reason, newTag(), "");
    }

    /** Seconds of the Retry-After of every 503 the front answers itself. */
    public int retryAfterSeconds() {
        return retryAfterSeconds;
    }

    /** A new To tag of the front's own answers. */
    private String newTag() {
        return "p2psip-" + tagPrefix + "-" + sequence.incrementAndGet();
    }

    /** 503 with Retry-After, as the front answers every request it cannot serve. */
    Message unavailable(Message request) {
        stats.answered503.increment();
        return Answers.of(request, 503, "Service Unavailable", newTag(), "Retry-After: " + retryAfterSeconds + "\r\n");
    }

    /**
     * An answer that goes on towards the caller, without the front's own Via; null if it has
     * nothing but the front's (it has nowhere to go).
     */
    Message withoutOwnVia(Message response) {
        String top = response.branch;
        return top != null && top.startsWith(Branches.PREFIX) ? Splices.withoutTopVia(response) : response;
    }

    private String newBranch() {
        return BRANCH_PREFIX + tagPrefix + "-" + Long.toHexString(sequence.incrementAndGet());
    }

    private Message push(Message request, String branch, String transport) {
        return Splices.forwarded(request, ownVia(branch, transport), null, null);
    }

    /** The front's Via line with {@code branch}, naming the transport the request goes by. */
    private String ownVia(String branch, String transport) {
        return ViaPath.ownLine(listeners.inner(), branch, transport) + "\r\n";
    }

    /**
     * The front's URI in the dialogs it keeps: its inner address, where the nodes and the callees
     * reach it; with the token of {@code flow}, a client's connection, unless that is {@link Destination#UDP}.
     */
    private String ownUri(long flow) {
        InetSocketAddress self = listeners.inner();
        return "<sip:" + USER + "@" + org.p2psip.front.wire.Addresses.uriHost(self.getAddress().getHostAddress()) + ":"
                + self.getPort() + ";lr" + (flow == Destination.UDP ? "" : ";flow=" + flows.token(flow)) + ">";
    }

    /** The next hop of an in-dialog request: its top Route if it has one left (loose routing), else its Request-URI. */
    private static InetSocketAddress nextHop(Message request) {
        int route = request.header("route");
        String uri = route < 0 ? request.requestUri() : routeUri(request.lines.value(route));
        return uri == null ? null : SipUriText.of(uri).udpAddress();
    }

    /** The URI of a Route's first value (always a name-addr, RFC 3261 §20.34), or null. */
    private static String routeUri(String route) {
        int open = route.indexOf('<');
        int close = route.indexOf('>', open + 1);
        return open < 0 || close < 0 ? null : route.substring(open + 1, close);
    }
}
