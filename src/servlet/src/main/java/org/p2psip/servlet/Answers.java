package org.p2psip.servlet;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import gov.nist.javax.sip.header.ims.PathHeader;
import gov.nist.javax.sip.message.SIPMessage;
import javax.servlet.sip.Address;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.SipURI;
import javax.servlet.sip.URI;
import javax.sip.header.Header;
import org.mobicents.servlet.sip.core.message.MobicentsSipServletMessage;
import org.p2psip.dht.Binding;
import org.p2psip.dht.DhtException;
import org.p2psip.proxy.Redirection;
import org.p2psip.proxy.Target;
import org.p2psip.registrar.Gruus;
import org.p2psip.intake.SessionRelease;

/**
 * Builds and sends the node's own responses. A response that cannot be sent (the transaction
 * ended meanwhile: the client gave up, a CANCEL came) is counted, never thrown at the caller,
 * which runs on a completion thread with nobody to catch it. Thread-safe.
 */
final class Answers {

    /** RFC 3261 §20.17: rfc1123-date, always GMT, two-digit day. */
    private static final DateTimeFormatter SIP_DATE = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US);

    private final SipFactory factory;
    private final RequestCounters counters;
    private final NodeStatus status;
    private final long retryAfterSeconds;
    private final int flowTimer;
    private final LoadReport load;
    private final SessionRelease sessions;

    Answers(SipFactory factory, RequestCounters counters, NodeStatus status, long retryAfterSeconds, int flowTimer,
            LoadReport load, SessionRelease sessions) {
        this.factory = factory;
        this.sessions = sessions;
        this.counters = counters;
        this.status = status;
        this.retryAfterSeconds = retryAfterSeconds;
        this.flowTimer = flowTimer;
        this.load = load;
    }

    /**
     * 200 OK to a REGISTER: every current binding with its remaining time, the Date, and the
     * request's Path, which the UA learns the route to it from (RFC 3327 §5.3: a registrar that
     * accepts a Path copies it into the 200; one the client did not say it supports was refused
     * with {@link #badExtension} unless p2psip.registrar.path-requires-supported is off). A binding
     * in {@code gruus} carries its GRUUs (RFC 5627 §5.2; only when the REGISTER said Supported: gruu).
     * A registration that uses {@code outbound} flows is told so (RFC 5626 §6: Require: outbound)
     * with the keep-alive interval it should keep (Flow-Timer).
     */
    void registered(SipServletRequest request, List<Binding> bindings, long now, Map<Binding, Gruus.Issued> gruus,
                    boolean outbound) {
        SipServletResponse response = request.createResponse(SipServletResponse.SC_OK);
        echoPath(request, response);
        if (outbound) {
            response.setHeader("Require", "outbound");
            if (flowTimer > 0) {
                response.setHeader("Flow-Timer", Integer.toString(flowTimer));
            }
        }
        for (Binding binding : bindings) {
            try {
                response.addAddressHeader("Contact", contactOf(binding, now, gruus.get(binding)), false);
            } catch (ServletParseException e) {
                counters.problem("stored-contact-unparsable", binding.contact() + ": " + e.getMessage());
            }
        }
        response.setHeader("Date", SIP_DATE.format(ZonedDateTime.now(ZoneOffset.UTC)));
        send(response);
    }

    /**
     * The request's Path headers, in order, into the response. Path is a system header to the
     * container, whose addHeader refuses it, so they are copied on the stack's messages.
     */
    private static void echoPath(SipServletRequest request, SipServletResponse response) {
        if (request instanceof MobicentsSipServletMessage in && in.getMessage() instanceof SIPMessage from
                && response instanceof MobicentsSipServletMessage out && out.getMessage() instanceof SIPMessage to) {
            for (var path = from.getHeaders(PathHeader.NAME); path.hasNext(); ) {
                to.addHeader((Header) ((Header) path.next()).clone());
            }
        }
    }

    /**
     * 200 to an OPTIONS for the node itself: the methods it handles (RFC 3261 §11), and its load
     * since the previous probe ({@link LoadReport}), by which a front weighs it.
     */
    void capabilities(SipServletRequest request) {
        SipServletResponse response = request.createResponse(SipServletResponse.SC_OK);
        response.setHeader("Allow", "REGISTER, INVITE, ACK, BYE, CANCEL, OPTIONS, MESSAGE, SUBSCRIBE, NOTIFY, INFO, UPDATE, REFER, PUBLISH");
        response.setHeader("P2PSIP-Load", load.header());
        send(response);
    }

    /**
     * 302 to an INVITE that asked for a redirect (RFC 3841 §9.1; src/proxy's {@link Redirection}):
     * a Contact per target, in the order given, each with its q (when the binding has one) and the
     * seconds left on its binding; a target with a Path carries it as an escaped Route header in
     * its URI (RFC 3261 §19.1.5), so that the redirected request passes the edge proxy that holds
     * the flow. A target whose URI the container cannot read is left out and counted.
     */
    void moved(SipServletRequest request, List<Target> targets, long now) {
        SipServletResponse response = request.createResponse(SipServletResponse.SC_MOVED_TEMPORARILY, "Moved Temporarily");
        for (Target target : targets) {
            Address contact = movedTo(target, now);
            if (contact != null) {
                response.addAddressHeader("Contact", contact, false);
            }
        }
        send(response);
    }

    /**
     * The Contact of a 302 for one target: its q (when the binding has one), the seconds left on
     * its binding, its Path as an escaped Route header in its URI; null, counted, when the
     * container cannot read its URI. The intake's redirects ({@link CalleeDirectory}) write it as
     * its text.
     */
    Address movedTo(Target target, long now) {
        URI uri;
        try {
            uri = factory.createURI(target.uri());
        } catch (ServletParseException e) {
            counters.problem("stored-contact-unparsable", target.uri());
            return null;
        }
        if (!target.path().isEmpty() && uri instanceof SipURI sip) {
            sip.setHeader("Route", Redirection.route(target.path())); // the container writes it as given
        }
        Address contact = factory.createAddress(uri);
        contact.setExpires((int) Math.min(Integer.MAX_VALUE, Binding.secondsLeft(target.expiresAt(), now)));
        if (target.q() != Binding.Q_UNSPECIFIED) {
            contact.setQ(target.q() / 1000f);
        }
        return contact;
    }

    void status(SipServletRequest request, int status, String reason) {
        send(request.createResponse(status, reason));
    }

    /** 423 with the Min-Expires the client must respect (RFC 3261 §10.3 step 7). */
    void intervalTooBrief(SipServletRequest request, String reason, long minExpires) {
        SipServletResponse response = request.createResponse(SipServletResponse.SC_INTERVAL_TOO_BRIEF, reason);
        response.setHeader("Min-Expires", Long.toString(minExpires));
        send(response);
    }

    /** 420 naming the extension the request needs and the client did not say it supports (RFC 3327 §5.3). */
    void badExtension(SipServletRequest request, String reason, String optionTag) {
        SipServletResponse response = request.createResponse(SipServletResponse.SC_BAD_EXTENSION, reason);
        response.setHeader("Unsupported", optionTag);
        send(response);
    }

    /**
     * A challenge: 401 with one WWW-Authenticate per offered algorithm (RFC 3261 §22.4, RFC 8760),
     * or 407 with Proxy-Authenticate for a request the node proxies (§22.3). The container's
     * addHeader keeps only the last of them, so they are added on the stack's message, which
     * keeps a list.
     */
    void challenge(SipServletRequest request, boolean proxy, List<String> challenges) {
        SipServletResponse response = request.createResponse(proxy
                ? SipServletResponse.SC_PROXY_AUTHENTICATION_REQUIRED : SipServletResponse.SC_UNAUTHORIZED);
        String name = proxy ? "Proxy-Authenticate" : "WWW-Authenticate";
        for (String challenge : challenges) {
            if (response instanceof MobicentsSipServletMessage out && out.getMessage() instanceof SIPMessage to) {
                to.addHeader(name + ": " + challenge);
            } else {
                response.addHeader(name, challenge);
            }
        }
        send(response);
    }

    /** 503 with Retry-After: the node or its DHT cannot take the request now. */
    void unavailable(SipServletRequest request, String reason) {
        SipServletResponse response = request.createResponse(SipServletResponse.SC_SERVICE_UNAVAILABLE, reason);
        response.setHeader("Retry-After", Long.toString(retryAfterSeconds));
        send(response);
    }

    /** 503 for a DHT failure, with a reason phrase that names the failure's kind. */
    void dhtFailed(SipServletRequest request, Throwable failure) {
        unavailable(request, dhtFailure(failure));
    }

    /** Counts a DHT failure as a problem of its kind; the reason phrase of its 503. */
    String dhtFailure(Throwable failure) {
        Throwable cause = failure.getCause() != null && !(failure instanceof DhtException) ? failure.getCause() : failure;
        String kind = cause instanceof DhtException e ? e.reason().name().toLowerCase(Locale.ROOT) : "error";
        counters.problem("dht-" + kind, cause.toString());
        return switch (kind) {
            case "timeout" -> "DHT Timeout";
            case "unreachable" -> "DHT Unreachable";
            case "overloaded" -> "DHT Overloaded";
            case "storage" -> "DHT Storage Failure";
            default -> "DHT Unavailable";
        };
    }

    private Address contactOf(Binding binding, long now, Gruus.Issued gruus) throws ServletParseException {
        Address address = factory.createAddress("<" + binding.contact() + ">");
        address.setExpires((int) Math.min(Integer.MAX_VALUE, binding.secondsLeft(now)));
        if (binding.q() != Binding.Q_UNSPECIFIED) {
            address.setQ(binding.q() / 1000f);
        }
        if (!binding.instance().isEmpty()) {
            address.setParameter("+sip.instance", binding.instance());
        }
        if (binding.regId() > 0) {
            address.setParameter("reg-id", Integer.toString(binding.regId()));
        }
        if (gruus != null) { // quoted strings (RFC 5627 §7); the container writes a value as it is given
            address.setParameter("pub-gruu", "\"" + gruus.publicGruu() + "\"");
            address.setParameter("temp-gruu", "\"" + gruus.temporaryGruu() + "\"");
        }
        return address;
    }

    private void send(SipServletResponse response) {
        try {
            if (response.getStatus() >= 200) {
                sessions.forgetOnceAnswered(response.getRequest());
            }
            response.send();
            status.response(response.getMethod(), response.getStatus());
        } catch (Exception e) {
            counters.problem("response-not-sent", response.getStatus() + " " + response.getReasonPhrase() + ": " + e);
        }
    }

    /** After the node's own final answer to the request: its session ends, its transaction lives on ({@link SessionRelease}). */
    void release(SipServletRequest request) {
        sessions.release(request);
    }
}
