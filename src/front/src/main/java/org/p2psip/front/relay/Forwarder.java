package org.p2psip.front.relay;

import gov.nist.javax.sip.address.SipUri;
import gov.nist.javax.sip.header.MaxForwards;
import gov.nist.javax.sip.header.Route;
import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import java.net.InetSocketAddress;
import java.text.ParseException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.sip.InvalidArgumentException;
import javax.sip.SipException;
import javax.sip.header.MaxForwardsHeader;
import javax.sip.header.RouteHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import org.p2psip.front.calls.KeptCalls;
import org.p2psip.front.calls.Message;
import org.p2psip.front.calls.StateSplit;
import org.p2psip.front.nodes.AffinityTable;
import org.p2psip.front.nodes.Node;
import org.p2psip.front.nodes.NodeLoad;
import org.p2psip.front.nodes.Nodes;
import org.p2psip.front.policies.Policy;
import org.p2psip.front.status.FrontStats;
import org.p2psip.front.wire.Addresses;
import org.p2psip.front.wire.Backlog;
import org.p2psip.front.wire.Branches;
import org.p2psip.front.wire.Listeners;
import org.p2psip.front.wire.Destination;
import org.p2psip.front.wire.FlowTokens;
import org.p2psip.front.wire.SipParser;
import org.p2psip.front.wire.ViaPath;
import org.p2psip.lazysip.Defect;
import org.p2psip.lazysip.LazyRequest;
import org.p2psip.lazysip.RequestSyntax;
import org.p2psip.lazysip.RouteValue;
import org.p2psip.lazysip.StatelessAnswer;
import org.p2psip.lazysip.ToTag;

/**
 * The front's request and response paths. A request gets the front's Via and goes to the node of
 * its Call-ID (a new Call-ID is given a node by the policy); an answer loses the front's Via and
 * goes back by the Via below it, or by the TCP or TLS connection named in the front's Via. The only
 * state is the affinity table and the open transactions the counters need (both bounded).
 *
 * <p>Thread-safe: called from any event-loop thread; all shared state is in thread-safe parts.
 */
public final class Forwarder {

    /** Methods whose request outside a dialog starts one, so the front record-routes it through a flow. */
    private static final java.util.Set<String> DIALOG_STARTERS = java.util.Set.of(Request.INVITE, Request.SUBSCRIBE,
            Request.REFER, Request.NOTIFY);
    private static final gov.nist.javax.sip.header.HeaderFactoryImpl HEADERS = new gov.nist.javax.sip.header.HeaderFactoryImpl();

    /** RFC 3261's T1 and T2: the front's retransmissions over UDP for its stream clients. */
    private static final long T1_MILLIS = 500;
    private static final long T2_MILLIS = 4_000;

    private static final byte[] KEPT_BRANCH = KeptCalls.BRANCH_PREFIX.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] KEPT_USER = KeptCalls.USER.getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** Via parameter naming the client's TCP or TLS connection, so its answers go back on it. */
    public static final String CONNECTION_PARAM = "p2psip-conn";

    private final Listeners listeners;
    private final InetSocketAddress self;
    private final Nodes nodes;
    private final Policy policy;
    private final AffinityTable affinity;
    private final Transactions transactions;
    private final Destination outlet;
    private final FrontStats stats;
    private final String tagPrefix = Long.toHexString(System.nanoTime() ^ System.identityHashCode(this));
    private final AtomicLong tags = new AtomicLong();
    private final FlowTokens flows;
    private final java.util.concurrent.ScheduledExecutorService timers;
    private final KeptCalls kept;
    private final StateSplit split;
    private final Backlog backlog;

    /**
     * {@code split} decides which new INVITEs the front keeps ({@code kept}); null
     * in stateless mode, where it keeps none (it still routes the dialogs it kept before).
     * A share of new requests, as {@code backlog} says, is answered 503 here while the UDP loop is behind.
     */
    public Forwarder(Listeners listeners, Nodes nodes, Policy policy, AffinityTable affinity, Transactions transactions,
            Destination outlet, FrontStats stats, java.util.concurrent.ScheduledExecutorService timers,
            KeptCalls kept, StateSplit split, Backlog backlog) {
        this.backlog = backlog;
        this.timers = timers;
        this.kept = kept;
        this.flows = kept.flowTokens();
        this.split = split;
        this.listeners = listeners;
        this.self = listeners.inner();
        this.nodes = nodes;
        this.policy = policy;
        this.affinity = affinity;
        this.transactions = transactions;
        this.outlet = outlet;
        this.stats = stats;
    }

    /** A request from a client, over UDP ({@code connection} = {@link Destination#UDP}) or a TCP or TLS connection. */
    void onRequest(SIPRequest request, InetSocketAddress source, long connection) {
        Via top = request.getTopmostVia();
        if (top == null) {
            stats.dropped.increment(); // nowhere to send an answer
            return;
        }
        try {
            ViaPath.stampSource(top, source);
            addMaxForwardsIfMissing(request);
            request.checkHeaders();
        } catch (ParseException e) {
            stats.answered400.increment();
            answer(request, connection, 400, e.getMessage());
            return;
        }
        String method = request.getMethod();
        boolean ack = Request.ACK.equals(method);
        if (!hopAllowed(request)) {
            if (!ack) {
                stats.answered483.increment();
                answer(request, connection, 483, "Too Many Hops"); // the nodes' words
            }
            return;
        }
        String routeUser = popOwnRoute(request);
        if (KeptCalls.USER.equals(routeUser)) {
            Message message = forKept(request, connection);
            if (message == null) {
                stats.dropped.increment();
            } else {
                kept.inDialog(message, Branches.of(request), connection); // a dialog the front keeps: no node in it
            }
            return;
        }
        String flowToken = FlowTokens.looksLikeToken(routeUser) ? routeUser : null;
        long flow = flowToken == null ? Destination.UDP : flows.connection(flowToken);
        if (flowToken != null && flow != connection) {
            toFlow(request, flowToken, flow, connection); // a node's request for a client: down its connection
            return;
        }
        if (connection != Destination.UDP && Request.REGISTER.equals(method)) {
            addFlowPath(request, connection);
        }
        String callId = request.getCallId().getCallId();
        boolean toTag = request.getToTag() != null;
        if (keptTransaction(method, Branches.of(request))) {
            Message message = forKept(request, connection);
            if (message == null) {
                stats.dropped.increment();
            } else {
                kept.sameTransaction(message, Branches.of(request), connection);
            }
            return;
        }
        if (startsWork(method, toTag) && backlog.shed()) {
            stats.shed.increment();
            refuse(request, connection);
            return;
        }
        long now = System.nanoTime();
        Message keptInvite = keepsNew(method, toTag, callId, now) ? forKept(request, connection) : null;
        Node node = nodeFor(method, callId, toTag, now);
        if (node == null) {
            refuse(request, connection);
        } else if (keptInvite != null) {
            kept.invite(keptInvite, Branches.of(request), node, connection);
        } else {
            send(request, node, connection, now);
        }
    }

    /**
     * A request JAIN-SIP parsed (the lazy reader doubted it: a folded header, a quoted Via, no
     * Max-Forwards...) written out again for the kept calls, which read every message where it
     * lies; null if even so it does not read, and then the front keeps nothing of it.
     */
    private Message forKept(SIPRequest request, long connection) {
        return Message.read(keepCSeqMethod(request.encodeAsBytes(outlet.transport(connection)), request.getMethod()));
    }

    /**
     * Hands a request the lazy path read to the kept calls, as they take it: its top Via stamped,
     * Max-Forwards spent by one, a Route naming the front consumed, and no Via of the front's.
     * False if the result does not read for them; nothing was done then.
     */
    private boolean toKept(LazyRequest request, InetSocketAddress source, java.util.function.Consumer<Message> to) {
        Message message = Message.read(request.forwarded("", source, namesSelf(request.route)));
        if (message == null) {
            return false;
        }
        to.accept(message);
        return true;
    }

    /** Whether a request belongs to a call the front keeps: its INVITE again, its CANCEL or its ACK. */
    private boolean keptTransaction(String method, String key) {
        boolean ofInvite = Request.INVITE.equals(method) || Request.ACK.equals(method) || Request.CANCEL.equals(method);
        return ofInvite && kept.owns(key);
    }

    /**
     * Whether the front keeps this new call's state itself: by its mode, and in dynamic mode by
     * the split's share. A Call-ID the front already gave a node stays with it, so that an INVITE
     * sent again after the share moved is not taken for a new call.
     */
    private boolean keepsNew(String method, boolean toTag, String callId, long now) {
        return split != null && !toTag && Request.INVITE.equals(method) && split.keepHere(callId)
                && affinity.nodeOf(callId, now) == null;
    }

    /**
     * The fast path of a request (over UDP): read lazily and spliced, not parsed. False if it must
     * take JAIN-SIP's path ({@link #onRequest(SIPRequest, InetSocketAddress, long)}); nothing was done then.
     */
    boolean onRequest(byte[] bytes, InetSocketAddress source, long connection) {
        if (refusedAsInvalid(bytes, source, connection)) {
            return true;
        }
        LazyRequest request = LazyRequest.read(bytes);
        if (request == null || (namesSelf(request.route) && FlowTokens.looksLikeToken(request.route.user))) {
            return false; // a request for a flow: JAIN-SIP's path writes its Via and Record-Route
        }
        String branch = Branches.of(request.branch, request.via.sentBy());
        if (namesSelf(request.route) && KeptCalls.USER.equals(request.route.user)) {
            return toKept(request, source, m -> kept.inDialog(m, branch, connection)); // a dialog the front keeps
        }
        if (keptTransaction(request.method, branch)) {
            return toKept(request, source, m -> kept.sameTransaction(m, branch, connection));
        }
        long now = System.nanoTime();
        boolean keep = keepsNew(request.method, request.toTag, request.callId, now);
        if (startsWork(request.method, request.toTag) && backlog.shed()) {
            shed(bytes, source, connection);
            return true;
        }
        Node node = nodeFor(request.method, request.callId, request.toTag, now);
        if (keep && node != null) {
            return toKept(request, source, m -> kept.invite(m, branch, node, connection)); // a call whose state the front keeps
        }
        byte[] forwarded = request.forwarded(ownViaLine(branch, connection), source, namesSelf(request.route));
        if (node == null) {
            refuseForwarded(forwarded, connection);
            return true;
        }
        boolean newCall = request.method.equals(Request.INVITE) && !request.toTag;
        dispatch(request.method, branch, request.callId, newCall, node, connection, now, forwarded);
        return true;
    }

    /**
     * The kept path of a message from a TCP or TLS client, read where it lies as over UDP: an
     * answer to one of the front's kept branches (a callee on a flow), a request of a dialog the
     * front keeps, of a kept call's own transaction, or a new INVITE the front keeps. False for
     * everything else, which takes JAIN-SIP's path, where the streams' own rules live (a
     * REGISTER's Path, a request for a flow, retransmissions to the node); nothing was done then. The request was checked to be valid SIP already.
     */
    boolean keptFromStream(byte[] bytes, InetSocketAddress source, long connection) {
        if (startsWith(bytes, "SIP/2.0 ")) {
            return mentions(bytes, KEPT_BRANCH) && toKept(bytes);
        }
        if (split == null && !mentions(bytes, KEPT_USER)) {
            return false; // a front that keeps no new call has only its kept dialogs' requests to take, which name it so
        }
        LazyRequest request = LazyRequest.read(bytes);
        if (request == null) {
            return false;
        }
        if (namesSelf(request.route) && FlowTokens.looksLikeToken(request.route.user)) {
            return false; // a request on or for a flow: JAIN-SIP's path, which knows flows
        }
        String branch = Branches.of(request.branch, request.via.sentBy());
        if (namesSelf(request.route) && KeptCalls.USER.equals(request.route.user)) {
            return toKept(request, source, m -> kept.inDialog(m, branch, connection));
        }
        if (keptTransaction(request.method, branch)) {
            return toKept(request, source, m -> kept.sameTransaction(m, branch, connection));
        }
        long now = System.nanoTime();
        if (!keepsNew(request.method, request.toTag, request.callId, now)) {
            return false;
        }
        if (backlog.shed()) {
            shed(bytes, source, connection);
            return true;
        }
        Node node = nodeFor(request.method, request.callId, request.toTag, now);
        return node != null && toKept(request, source, m -> kept.invite(m, branch, node, connection));
    }

    /** Whether a request would start work at a node: not in a dialog, not the ACK or CANCEL of a transaction begun. */
    private static boolean startsWork(String method, boolean toTag) {
        return !toTag && !Request.ACK.equals(method) && !Request.CANCEL.equals(method);
    }

    /**
     * 503 with Retry-After for a new request the front sheds while behind its socket ({@link Backlog}),
     * written from the request's bytes: a retransmission gets the same answer (the tag is the
     * bytes' hash), and nothing is kept.
     */
    private void shed(byte[] bytes, InetSocketAddress source, long connection) {
        stats.shed.increment();
        answerFromBytes(bytes, source, connection, 503, "Service Unavailable",
                "Retry-After: " + kept.retryAfterSeconds() + "\r\n");
    }

    /**
     * An answer of the front's own written from a request's bytes; its tag is the bytes' hash, so a
     * retransmission gets the same answer.
     */
    private void answerFromBytes(byte[] bytes, InetSocketAddress source, long connection, int status, String reason,
            String extraLines) {
        StatelessAnswer answer = StatelessAnswer.of(bytes, 0, bytes.length, status, reason,
                "p2psip-" + tagPrefix + "-" + Integer.toHexString(java.util.Arrays.hashCode(bytes)), source,
                extraLines);
        outlet.toClient(connection, connection == Destination.UDP ? answer.to : null, answer.message);
    }

    /**
     * A request that is not valid SIP ({@link RequestSyntax}) is answered here, from its bytes,
     * with its defect's status and reason phrase (505, 416 or 400), as the nodes' intake answers
     * it: never forwarded, since JAIN-SIP's path would write it out as a valid request (any
     * version as SIP/2.0, a header it cannot read dropped). An ACK cannot be answered and one
     * without a Via has nowhere to go: both go on unjudged, as valid requests do. False if it was not refused.
     */
    boolean refusedAsInvalid(byte[] bytes, InetSocketAddress source, long connection) {
        if (startsWith(bytes, "ACK ") || startsWith(bytes, "SIP/")) {
            return false;
        }
        Defect defect = connection == Destination.UDP ? RequestSyntax.check(bytes, 0, bytes.length)
                : RequestSyntax.checkStreamed(bytes, 0, bytes.length);
        if (defect == null || defect == Defect.MISSING_VIA) {
            return false;
        }
        (defect.status == 505 ? stats.answered505 : defect.status == 416 ? stats.answered416 : stats.answered400)
                .increment();
        answerFromBytes(bytes, source, connection, defect.status, defect.reason, "");
        return true;
    }

    /**
     * Whether the head of a message holds {@code what}: a cheap look for the front's kept branch
     * on an answer, which goes to the kept calls' own reader rather than the forwarding path's.
     * Only a front that keeps calls looks: a stateless one (which may still hear answers for
     * calls it kept before a restart) finds them after the forwarding path's read, without this
     * scan on every message. A body that happens to hold the mark only costs the kept reader's
     * look before the forwarding path, which then reads it as usual.
     */
    private static boolean mentions(byte[] bytes, byte[] what) {
        int end = bytes.length - what.length;
        outer:
        for (int i = 0; i <= end; i++) {
            if (bytes[i] == '\r' && i + 3 < bytes.length && bytes[i + 1] == '\n' && bytes[i + 2] == '\r') {
                return false; // the end of the head
            }
            for (int j = 0; j < what.length; j++) {
                if (bytes[i + j] != what[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static boolean startsWith(byte[] bytes, String prefix) {
        if (bytes.length < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (bytes[i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private Node nodeFor(String method, String callId, boolean toTag, long now) {
        Node node = affinity.nodeOf(callId, now);
        if (node != null && node.up()) {
            return node;
        }
        boolean continues = toTag || Request.ACK.equals(method) || Request.CANCEL.equals(method);
        if (node != null && continues) {
            return null; // its dialog or transaction lives on a node that is down
        }
        List<Node> up = nodes.up();
        if (up.isEmpty()) {
            return null;
        }
        node = policy.choose(up, callId);
        affinity.assign(callId, node, now);
        return node;
    }

    private void send(SIPRequest request, Node node, long connection, long now) {
        String method = request.getMethod();
        String branch = Branches.of(request);
        try {
            request.addFirst(ownVia(branch, connection));
        } catch (ParseException | InvalidArgumentException | SipException e) {
            throw new IllegalStateException("the front's own Via is malformed", e);
        }
        byte[] bytes = keepCSeqMethod(request.encodeAsBytes("UDP"), method);
        boolean newCall = Request.INVITE.equals(method) && request.getToTag() == null;
        dispatch(method, branch, request.getCallId().getCallId(), newCall, node, connection, now, bytes);
    }

    /**
     * JAIN-SIP writes the method of a CSeq it parsed in upper case; an extension method is
     * case-sensitive (RFC 3261 §7.1), so the CSeq of a request it wrote is given the request
     * line's method back, lest the node refuse it for a CSeq naming another method. Only a
     * method with a lower-case letter can differ.
     */
    private static byte[] keepCSeqMethod(byte[] bytes, String method) {
        if (method.equals(method.toUpperCase(java.util.Locale.ROOT))) {
            return bytes;
        }
        String text = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
        String written = " " + method.toUpperCase(java.util.Locale.ROOT) + "\r\n";
        int cseq = text.indexOf("\r\nCSeq: ");
        int at = cseq < 0 ? -1 : text.indexOf(written, cseq + 8);
        if (at < 0 || text.lastIndexOf("\r\n", at) != cseq) {
            return bytes;
        }
        return (text.substring(0, at + 1) + method + text.substring(at + written.length() - 2))
                .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** Opens the transaction (503 if too many are open) and sends the request, with the front's Via, to its node. */
    private void dispatch(String method, String branch, String callId, boolean newCall, Node node, long connection,
            long now, byte[] forwarded) {
        if (!Request.ACK.equals(method)) {
            boolean invite = Request.INVITE.equals(method);
            var open = new Transactions.Open(node, invite, forwarded, connection, now);
            String key = Transactions.key(branch, method);
            Transactions.Start start = transactions.start(key, open);
            if (start == Transactions.Start.FULL) {
                refuseForwarded(forwarded, connection);
                return;
            }
            if (start == Transactions.Start.STARTED && connection != Destination.UDP) {
                retransmitLater(key, open, T1_MILLIS);
            }
            if (newCall) {
                affinity.callStarted(callId);
            }
        }
        stats.requestsForwarded.increment();
        outlet.toNode(node, forwarded);
    }

    /**
     * A request from a TCP or TLS client crosses to its node over UDP, where a datagram may be
     * lost (a node's receive buffer overflowing in a burst), and its client never sends it again
     * over a reliable transport (RFC 3261 §17.1.1.2). So the front does what a UDP client would:
     * it sends the request again after T1, then after twice as long each time (a non-INVITE's at
     * most every T2: Timers E and A), until the node answers or 64 x T1 have passed. Requests of
     * UDP clients are not: their clients retransmit them, through the front.
     */
    private void retransmitLater(String key, Transactions.Open open, long delayMillis) {
        timers.schedule(() -> {
            if (transactions.get(key) != open || open.provisional) {
                return; // answered, or forgotten
            }
            long next = open.invite ? 2 * delayMillis : Math.min(2 * delayMillis, T2_MILLIS);
            stats.retransmittedToNodes.increment();
            outlet.toNode(open.node, open.forwarded);
            if (System.nanoTime() - open.startNanos + next * 1_000_000L < 64 * T1_MILLIS * 1_000_000L) {
                retransmitLater(key, open, next);
            }
        }, delayMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /** An answer from a node (or anything that claims to be one): back to the client on the path it came. */
    void onResponse(SIPResponse response) {
        Via top = response.getTopmostVia();
        String branch = top == null ? null : top.getBranch();
        if (branch == null || !branch.startsWith(Branches.PREFIX) || response.getCSeq() == null
                || response.getCallId() == null) {
            stats.dropped.increment(); // not an answer to anything the front sent
            return;
        }
        if (branch.startsWith(Branches.PROBE_PREFIX)) {
            var load = response.getHeader(NodeLoad.HEADER);
            nodes.probeAnswered(response.getCallId().getCallId(), response.getStatusCode(),
                    load == null ? Double.NaN : NodeLoad.parse(((javax.sip.header.ExtensionHeader) load).getValue()));
            return;
        }
        if (branch.startsWith(KeptCalls.BRANCH_PREFIX)) {
            Message message = Message.read(response.encodeAsBytes("UDP")); // an answer the lazy reader doubted
            if (message == null || !kept.onResponse(message)) {
                stats.dropped.increment();
            }
            return;
        }
        if (!account(response.getCSeq().getMethod(), response.getStatusCode(), branch, response.getCallId().getCallId())) {
            return;
        }
        String connectionParam = top.getParameter(CONNECTION_PARAM);
        response.removeFirst(ViaHeader.NAME);
        Via next = response.getTopmostVia();
        if (next == null) {
            stats.dropped.increment();
            return;
        }
        long connection = connectionParam == null ? Destination.UDP : parseConnection(connectionParam);
        if (toClient(response, next, connection)) {
            stats.responsesForwarded.increment();
        }
    }

    /**
     * The fast path of an answer: read lazily, the front's Via cut out. False if it must take
     * JAIN-SIP's path ({@link #onResponse(SIPResponse)}); nothing was done then.
     */
    boolean onResponse(byte[] bytes) {
        if (split != null && mentions(bytes, KEPT_BRANCH) && toKept(bytes)) {
            return true;
        }
        LazyResponse response = LazyResponse.read(bytes);
        if (response == null || !response.branch.startsWith(Branches.PREFIX)) {
            return false;
        }
        if (response.branch.startsWith(KeptCalls.BRANCH_PREFIX)) {
            return toKept(bytes);
        }
        if (response.branch.startsWith(Branches.PROBE_PREFIX)) {
            nodes.probeAnswered(response.callId, response.status, NodeLoad.find(bytes));
            return true;
        }
        long connection = response.connection == null ? Destination.UDP : parseConnection(response.connection);
        if (!response.next.transport.equalsIgnoreCase(outlet.transport(connection))) {
            return false; // JAIN-SIP's path writes the transport the answer goes by into the Via
        }
        if (!account(response.method, response.status, response.branch, response.callId)) {
            return true;
        }
        InetSocketAddress address = connection == Destination.UDP ? ViaPath.responseAddress(response.next.host, response.next.port, response.next.param("received"), response.next.param("rport")) : null;
        if (connection == Destination.UDP && address == null) {
            stats.dropped.increment();
            return true;
        }
        outlet.toClient(connection, address, response.toClient());
        stats.responsesForwarded.increment();
        return true;
    }

    /** An answer to a kept transaction, to its state machine as it lies; false if it does not read so. */
    private boolean toKept(byte[] bytes) {
        Message message = Message.read(bytes);
        return message != null && kept.onResponse(message);
    }

    /**
     * Counters and liveness from an answer: a final answer ends its transaction, and maybe its
     * call. False when it must not reach the client: the front answered it 503 already.
     */
    private boolean account(String method, int status, String branch, String callId) {
        String key = Transactions.key(branch, method);
        Transactions.Open open = status >= 200 ? transactions.finish(key) : transactions.provisional(key);
        if (open != null) {
            nodes.heard(open.node);
        } else if (status >= 200 && transactions.answeredAlready(key)) {
            stats.lateAnswersDropped.increment();
            return false;
        }
        boolean callOver = (Request.INVITE.equals(method) && status >= 300)
                || (Request.BYE.equals(method) && status >= 200);
        if (callOver) {
            affinity.callEnded(callId);
        }
        return true;
    }

    /** Answers 503 to every transaction open on a node found dead: the client hears, rather than waits. */
    public void abandon(Node node) {
        kept.abandon(node);
        for (Transactions.Open open : transactions.abandon(node, System.nanoTime())) {
            refuseForwarded(open.forwarded, open.connection);
        }
    }

    /** 503 to a request the front wrote for a node: parsed by JAIN-SIP only now, its own Via taken off. */
    private void refuseForwarded(byte[] forwarded, long connection) {
        SIPRequest request;
        try {
            request = (SIPRequest) SipParser.parse(forwarded, true);
        } catch (ParseException e) {
            throw new IllegalStateException("the front wrote a request it cannot read", e);
        }
        request.removeFirst(ViaHeader.NAME); // the front's own, pushed when it was sent
        refuse(request, connection);
    }

    /** 503 with Retry-After (an ACK cannot be answered, so it is dropped). */
    private void refuse(SIPRequest request, long connection) {
        if (Request.ACK.equals(request.getMethod())) {
            stats.dropped.increment();
            return;
        }
        SIPResponse response = request.createResponse(503, "Service Unavailable");
        try {
            var retryAfter = new gov.nist.javax.sip.header.RetryAfter();
            retryAfter.setRetryAfter(kept.retryAfterSeconds());
            response.setHeader(retryAfter);
        } catch (InvalidArgumentException e) {
            throw new IllegalArgumentException("Retry-After must be a positive number of seconds", e);
        }
        stats.answered503.increment();
        send(response, request.getTopmostVia(), connection);
    }

    private void answer(SIPRequest request, long connection, int status, String reason) {
        SIPResponse response = reason == null ? request.createResponse(status)
                : request.createResponse(status, reason.replaceAll("[\\r\\n]", " "));
        send(response, request.getTopmostVia(), connection);
    }

    private void send(SIPResponse response, Via clientVia, long connection) {
        if (response.getToTag() == null && response.getTo() != null) {
            try {
                response.getTo().setTag("p2psip-" + tagPrefix + "-" + tags.incrementAndGet());
            } catch (ParseException e) {
                throw new IllegalStateException("the front's own tag is malformed", e);
            }
        }
        toClient(response, clientVia, connection);
    }

    private boolean toClient(SIPResponse response, Via clientVia, long connection) {
        InetSocketAddress address = connection == Destination.UDP ? ViaPath.responseAddress(clientVia) : null;
        if (connection == Destination.UDP && address == null) {
            stats.dropped.increment();
            return false;
        }
        // JAIN-SIP writes this transport into the client's Via: it must be the one the answer goes by
        outlet.toClient(connection, address, response.encodeAsBytes(outlet.transport(connection)));
        return true;
    }

    private Via ownVia(String branch, long connection)
            throws ParseException, InvalidArgumentException {
        Via via = ViaPath.own(self, branch);
        if (connection != Destination.UDP) {
            via.setParameter(CONNECTION_PARAM, Long.toString(connection));
        }
        return via;
    }

    /** The front's Via as a header line, written as {@link #ownVia} writes it. */
    private String ownViaLine(String branch, long connection) {
        var line = new StringBuilder(96).append(ViaPath.ownLine(self, branch));
        if (connection != Destination.UDP) {
            line.append(';').append(CONNECTION_PARAM).append('=').append(connection);
        }
        return line.append("\r\n").toString();
    }

    /** Whether a top Route read by the fast path (a sip: URI) names the front, as {@link #popOwnRoute} decides. */
    private boolean namesSelf(RouteValue route) {
        return route != null && route != RouteValue.DOUBTFUL && listeners.named(route.host, route.port, false);
    }

    /** A request without Max-Forwards gets one (RFC 3261 §16.6 step 3) rather than a 400. */
    private static void addMaxForwardsIfMissing(SIPRequest request) {
        if (request.getHeader(MaxForwardsHeader.NAME) == null) {
            try {
                request.setHeader(new MaxForwards(70));
            } catch (InvalidArgumentException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** Max-Forwards (RFC 3261 §16.3 step 3): false if it is spent; else decremented. */
    private static boolean hopAllowed(SIPRequest request) {
        MaxForwards maxForwards = (MaxForwards) request.getHeader(MaxForwardsHeader.NAME);
        try {
            maxForwards.decrementMaxForwards();
            return true;
        } catch (javax.sip.header.TooManyHopsException e) {
            return false;
        }
    }

    /**
     * A top Route naming the front itself (at its UDP/TCP port or its TLS port) is the client's way
     * of reaching it, or a node's way of reaching a client's flow; it is consumed here (§16.4).
     * Left in, the node would send the request back. Returns the Route's user part (a flow token,
     * {@link FlowTokens#looksLikeToken}, or {@link KeptCalls#USER}), null if none was consumed.
     */
    private String popOwnRoute(SIPRequest request) {
        Route route = (Route) request.getHeader(RouteHeader.NAME);
        if (route != null && route.getAddress().getURI() instanceof SipUri uri
                && listeners.named(uri.getHost(), uri.getPort(),
                        uri.isSecure() || "tls".equalsIgnoreCase(uri.getTransportParam()))) {
            request.removeFirst(RouteHeader.NAME);
            return uri.getUser();
        }
        return null;
    }

    /**
     * A request routed to one of the front's flows (RFC 5626 §5.3): sent down the client's own
     * connection, with the front's Via naming that connection's transport, so that a client with
     * no listening socket receives it. A dialog it starts is record-routed through the same flow,
     * so the dialog's later requests take it too. A flow whose connection has closed, or a token
     * this front did not issue ({@code flow} -1), is answered 430 Flow Failed at once: the node
     * then tries the user's next binding instead of waiting for a time-out.
     */
    private void toFlow(SIPRequest request, String token, long flow, long from) {
        if (flow < 0 || !outlet.open(flow)) {
            stats.flowsFailed.increment();
            if (!Request.ACK.equals(request.getMethod())) {
                answer(request, from, 430, "Flow Failed");
            }
            return;
        }
        String method = request.getMethod();
        String transport = outlet.transport(flow);
        try {
            if (request.getToTag() == null && DIALOG_STARTERS.contains(method)) {
                request.addFirst((gov.nist.javax.sip.header.SIPHeader) HEADERS.createHeader("Record-Route",
                        flowUri(token, false)));
            }
            Via via = ownVia(Branches.of(request), Destination.UDP);
            via.setTransport(transport);
            request.addFirst(via);
        } catch (ParseException | InvalidArgumentException | SipException e) {
            throw new IllegalStateException("the front's own Via or Record-Route is malformed", e);
        }
        stats.flowRequests.increment();
        outlet.toClient(flow, null, keepCSeqMethod(request.encodeAsBytes(transport), method));
    }

    /**
     * The REGISTER of a client on a TCP or TLS connection gets a Path naming that connection's
     * flow (RFC 3327, RFC 5626 §5.1), so that requests for the binding come back to this front
     * and down the same connection: the only way to reach a client behind NAT, or one that
     * listens nowhere. {@code ob} when a Contact asks for outbound (a reg-id), as §5.1 says the
     * first hop marks itself.
     */
    private void addFlowPath(SIPRequest request, long connection) {
        boolean outbound = false;
        for (var contacts = request.getHeaders(javax.sip.header.ContactHeader.NAME); contacts.hasNext(); ) {
            var contact = (javax.sip.header.ContactHeader) contacts.next();
            outbound |= contact.getParameter("reg-id") != null;
        }
        try {
            request.addFirst((gov.nist.javax.sip.header.SIPHeader) HEADERS.createHeader("Path",
                    flowUri(flows.token(connection), outbound)));
        } catch (ParseException | SipException e) {
            throw new IllegalStateException("the front's own Path is malformed", e);
        }
    }

    /** The URI of a flow at this front, for a Path or a Record-Route. */
    private String flowUri(String token, boolean ob) {
        String host = self.getAddress().getHostAddress();
        return "<sip:" + token + "@" + Addresses.uriHost(host) + ":" + self.getPort()
                + ";lr" + (ob ? ";ob" : "") + ">";
    }

    private static long parseConnection(String text) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            return -1; // no such connection: the outlet drops it
        }
    }
}
