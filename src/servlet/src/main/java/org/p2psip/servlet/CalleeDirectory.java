package org.p2psip.servlet;

import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipURI;
import javax.servlet.sip.URI;
import org.p2psip.intake.Directory;
import org.p2psip.proxy.Decision;
import org.p2psip.proxy.Refusal;
import org.p2psip.registrar.Domains;
import org.p2psip.registrar.Location;
import org.p2psip.registrar.RegistrarService;

/**
 * The node's answers to INVITEs that ask for a redirect (a stateful front's lookups, RFC 3841),
 * given to the intake, which writes them from the request's bytes so that the container makes
 * neither a transaction nor a session for them ({@link Directory}). The same answers as the
 * container path's ({@link Routing} asks src/proxy's rules for both): 403 for a domain not served, 404 for an
 * AOR never registered, 480 when none of its bindings is live (or none is sips: for a sips:
 * Request-URI), 482 when the only contacts are this node, 503 past admission or when the DHT
 * fails or misses its deadline, else 302 with the contacts in the order the proxy would ring them
 * ({@link Answers#movedTo}). What it cannot answer as the container would goes to the container:
 * a Request-URI it cannot read or without a user, a domain not served while the node relays, and
 * every INVITE while the node asks callers for credentials (its 407). Thread-safe.
 */
final class CalleeDirectory implements Directory {

    private final RegistrarService service;
    private final Admission admission;
    private final Answers answers;
    private final RequestCounters counters;
    private final NodeStatus status;
    private final SipFactory factory;
    private final Domains domains;
    private final Authentication authentication;
    private final Routing routing;
    private final boolean relay;
    private final Clock clock;

    CalleeDirectory(RegistrarService service, Admission admission, Answers answers, RequestCounters counters, NodeStatus status,
            SipFactory factory, Domains domains, Authentication authentication, Routing routing, boolean relay,
            Clock clock) {
        this.service = service;
        this.admission = admission;
        this.answers = answers;
        this.counters = counters;
        this.status = status;
        this.factory = factory;
        this.domains = domains;
        this.authentication = authentication;
        this.routing = routing;
        this.relay = relay;
        this.clock = clock;
    }

    @Override
    public CompletionStage<Answer> find(String requestUri, InetSocketAddress source) {
        if (authentication.asksCallers()) {
            return null; // the container challenges the caller (407) before any lookup
        }
        URI target = parsed(requestUri);
        String aor = target instanceof SipURI sip && sip.getUser() != null && !sip.getUser().isEmpty()
                ? Aors.of(target, domains) : null;
        boolean served = aor != null && domains.serves(Aors.domainOf(aor));
        if (aor == null || !served && relay) {
            return null; // a relay: whether the caller is one of ours is the container path's to judge
        }
        status.request("INVITE");
        if (!served) {
            counters.problem("domain-not-served", "INVITE " + requestUri + " from " + source);
            return answered(new Answer(403, "Domain Not Served", List.of()));
        }
        if (!admission.enter()) {
            counters.problem("route-overloaded", "more than the admitted requests in flight");
            return answered(new Answer(503, "Overloaded", List.of()));
        }
        var gruu = service.gruus().resolve(aor, ((SipURI) target).getParameter("gr"));
        var found = gruu.isPresent() ? service.locate(gruu.get()) : service.locate(aor);
        return found.toCompletableFuture().handle((location, failure) -> {
            admission.leave();
            return counted(failure != null ? new Answer(503, answers.dhtFailure(failure), List.of())
                    : answer(location, target));
        });
    }

    private Answer answer(Location location, URI target) {
        Decision decision = routing.redirectOf(target, location);
        if (decision instanceof Decision.Refuse refuse) {
            Refusal refusal = refuse.refusal();
            if (refusal.logged) {
                counters.problem(refusal.counter, "INVITE " + target + " asking for a redirect");
            } else {
                counters.count(refusal.counter);
            }
            return new Answer(refusal.status, refusal.reason, List.of());
        }
        if (!(decision instanceof Decision.Redirect redirect)) {
            throw new IllegalStateException("the proxy's rules did not redirect a lookup that asked for it: " + decision);
        }
        counters.count("route-redirected");
        long now = clock.millis();
        return new Answer(302, "Moved Temporarily", redirect.contacts().stream().map(t -> answers.movedTo(t, now))
                .filter(Objects::nonNull).map(Object::toString).toList());
    }

    private CompletionStage<Answer> answered(Answer answer) {
        return CompletableFuture.completedFuture(counted(answer));
    }

    /** The node's own responses are metered by method and status, whoever writes them. */
    private Answer counted(Answer answer) {
        status.response("INVITE", answer.status());
        return answer;
    }

    private URI parsed(String requestUri) {
        try {
            return factory.createURI(requestUri);
        } catch (ServletParseException | RuntimeException e) {
            return null; // the container answers it as it answers any Request-URI it cannot read
        }
    }
}
