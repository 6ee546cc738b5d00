package org.p2psip.servlet;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.ListIterator;
import java.util.Optional;
import javax.servlet.sip.Address;
import javax.servlet.sip.Proxy;
import javax.servlet.sip.ProxyBranch;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.SipURI;
import javax.servlet.sip.TooManyHopsException;
import javax.servlet.sip.URI;
import org.p2psip.config.Config;
import org.p2psip.proxy.Decision;
import org.p2psip.proxy.UriParts;
import org.p2psip.proxy.ProxyRules;
import org.p2psip.proxy.Redirection;
import org.p2psip.proxy.Refusal;
import org.p2psip.proxy.Request;
import org.p2psip.proxy.Search;
import org.p2psip.proxy.Target;
import org.p2psip.registrar.Domains;
import org.p2psip.registrar.Location;
import org.p2psip.registrar.RegistrarOptions;
import org.p2psip.registrar.Gruu;
import org.p2psip.registrar.RegistrarService;

/**
 * Requests out of a dialog other than REGISTER (RFC 3261 §16), as the container carries them:
 * an OPTIONS to the node itself is answered here; anything else is for an AOR (or a GRUU: that
 * instance's bindings), looked up in the DHT, and src/proxy's {@link ProxyRules} decide from
 * what the lookup found: a refusal, a 302 (RFC 3841 Request-Disposition: redirect), or the q
 * groups the container's proxy rings in turn, record-routing so that the dialog's later
 * requests pass through this node. This class reads the container's request into the rules'
 * {@link Request} and carries their {@link Decision} out.
 */
final class Routing {

    private final RegistrarService service;
    private final Admission admission;
    private final Answers answers;
    private final RequestCounters counters;
    private final SipFactory factory;
    private final ContainerThreads threads;
    private final int branchTimeoutSeconds;
    private final Domains domains;
    private final Authentication authentication;
    private final boolean relay;
    private final Clock clock;
    private final ProxyRules rules;

    Routing(RegistrarService service, Admission admission, Answers answers, RequestCounters counters, SipFactory factory,
            ContainerThreads threads, Config config, Domains domains, Authentication authentication, Clock clock) {
        this.service = service;
        this.admission = admission;
        this.answers = answers;
        this.counters = counters;
        this.factory = factory;
        this.threads = threads;
        this.branchTimeoutSeconds = (int) config.get(ServletOptions.BRANCH_TIMEOUT).toSeconds();
        this.domains = domains;
        this.authentication = authentication;
        this.relay = config.get(RegistrarOptions.RELAY);
        this.clock = clock;
        this.rules = new ProxyRules(domains);
    }

    void handle(SipServletRequest request) {
        var refused = ProxyRules.refusedBeforeLookup(facts(request));
        if (refused.isPresent()) {
            refuse(request, refused.get());
            return;
        }
        URI target = request.getRequestURI();
        if (target instanceof SipURI sip && (sip.getUser() == null || sip.getUser().isEmpty())) {
            answerForThisNode(request);
            return;
        }
        String unsupported = proxyRequired(request);
        if (!unsupported.isEmpty()) { // RFC 3261 §16.3 step 5: this proxy supports no extension
            counters.problem("proxy-require-unsupported", unsupported);
            answers.badExtension(request, "Bad Extension", unsupported);
            answers.release(request);
            return;
        }
        String aor = Aors.of(target, domains);
        if (aor == null) {
            counters.problem("unsupported-uri-scheme", String.valueOf(target));
            finish(request, 416, "Unsupported URI Scheme");
            return;
        }
        boolean served = domains.serves(Aors.domainOf(aor));
        if (!served && !(relay && fromOurUser(request))) {
            counters.problem("domain-not-served", request.getMethod() + " " + target);
            finish(request, 403, "Domain Not Served"); // not an open relay
            return;
        }
        if (!authentication.admitsCall(request, domains)) {
            answers.release(request);
            return;
        }
        if (served) {
            locate(request, aor);
        } else {
            relay(request, target);
        }
    }

    /** Looks the AOR up in the DHT (within admission) and routes the request to what it finds. */
    private void locate(SipServletRequest request, String aor) {
        if (!admission.enter()) {
            counters.problem("route-overloaded", "more than the admitted requests in flight");
            answers.unavailable(request, "Overloaded");
            answers.release(request);
            return;
        }
        Optional<Gruu> gruu = service.gruus().resolve(aor, gruuParameter(request.getRequestURI()));
        var found = gruu.isPresent() ? service.locate(gruu.get()) : service.locate(aor);
        var work = found.toCompletableFuture().whenComplete((location, failure) -> admission.leave());
        threads.whenDone(request, work, (location, failure) -> {
            if (failure != null) {
                answers.dhtFailed(request, failure);
                answers.release(request);
            } else {
                route(request, location);
            }
        });
    }

    /** A request whose Request-URI names no user is for the node: OPTIONS is its health probe. */
    private void answerForThisNode(SipServletRequest request) {
        if ("OPTIONS".equals(request.getMethod())) {
            counters.count("options-200");
            answers.capabilities(request);
        } else {
            counters.problem("no-user-in-request-uri", request.getMethod() + " " + request.getRequestURI());
            answers.status(request, 404, "No User in Request-URI");
        }
        answers.release(request);
    }

    private void route(SipServletRequest request, Location location) {
        Decision decision = rules.decide(facts(request), location, this::uriPartsOf);
        if (decision instanceof Decision.Refuse refuse) {
            refuse(request, refuse.refusal());
        } else if (decision instanceof Decision.Redirect redirect) {
            counters.count("route-redirected");
            answers.moved(request, redirect.contacts(), clock.millis());
            answers.release(request);
        } else {
            var fork = (Decision.Fork) decision;
            List<List<Target>> groups = fork.groups();
            Forking.keepLater(request, groups.subList(1, groups.size()));
            startProxy(request, groups.get(0), fork.supervised(), "route-proxied");
        }
    }

    /**
     * The rules' decision for a lookup of {@code requestUri} that asks for a redirect, found at
     * {@code location}: what the intake's redirects answer ({@link CalleeDirectory}), so that they
     * answer as this path would.
     */
    Decision redirectOf(URI requestUri, Location location) {
        // decide reads no Max-Forwards (refusedBeforeLookup does, and a front's lookup has hops left)
        var lookup = new Request("INVITE", uriParts(requestUri), 70, false, List.of("redirect"));
        return rules.decide(lookup, location, this::uriPartsOf);
    }

    /** The request's facts the proxy's rules read. */
    private static Request facts(SipServletRequest request) {
        List<String> dispositions = new ArrayList<>(1);
        for (String name : Redirection.HEADER_NAMES) {
            request.getHeaders(name).forEachRemaining(dispositions::add);
        }
        return new Request(request.getMethod(), uriParts(request.getRequestURI()), request.getMaxForwards(),
                request.getTo().getParameter("tag") != null, dispositions);
    }

    private static UriParts uriParts(URI uri) {
        return uri instanceof SipURI sip ? new UriParts(uri.getScheme(), sip.getHost(), sip.getPort())
                : new UriParts(uri.getScheme(), null, -1);
    }

    /**
     * A branch's flow failed (430 from the edge proxy that holds it, RFC 5626 §5.3): its binding
     * is removed, so that no later request tries it, and the search goes on. The caller never
     * hears 430, which speaks of a hop it does not know: a best response 430 goes up as 480
     * ({@link #failed}).
     */
    void flowFailed(SipServletResponse response) {
        counters.count("route-flow-failed");
        SipServletRequest original = response.getProxy().getOriginalRequest();
        String aor = Aors.of(original.getRequestURI(), domains);
        String contact = response.getRequest().getRequestURI().toString();
        if (aor != null) {
            service.dropFlow(aor, contact).whenComplete((dropped, failure) -> {
                if (failure != null) {
                    counters.problem("flow-drop-failed", aor + " " + contact + ": " + failure);
                } else if (dropped) {
                    counters.count("route-flow-dropped");
                }
            });
        }
    }

    /**
     * The best final response of a proxied request, when every branch of its q class failed: if it
     * is no 6xx (which ends the search, RFC 3261 §16.7) and a lower class is left, rings that
     * class, and the container waits for its answers instead of sending this one upstream; else
     * it goes upstream as {@link Search#upstream} says (430 as 480, 503 as 500).
     */
    void failed(SipServletResponse best) {
        if (Search.ringsNext(best.getStatus()) && ringNextClass(best.getProxy())) {
            return;
        }
        Search.Answer upstream = Search.upstream(best.getStatus());
        if (upstream != null) {
            best.setStatus(upstream.status(), upstream.reason());
        }
    }

    /**
     * {@code branch} rang for p2psip.proxy.branch-timeout without a final answer, and the
     * container cancelled it ({@link BranchTimeouts}): if that was the last branch of its class
     * still waiting, and none answered 2xx or 6xx, the next lower class rings now. The container
     * then keeps waiting instead of answering the caller 408; with no class left, the caller gets
     * the best final answer of all classes (408 when none answered at all).
     */
    void timedOut(ProxyBranch branch) {
        counters.count("route-branch-timeout");
        Proxy proxy = branch.getProxy();
        if (Forking.groupFailed(proxy)) {
            ringNextClass(proxy);
        }
    }

    /** Rings the request's next q group; false when none is left or it came too late. */
    private boolean ringNextClass(Proxy proxy) {
        SipServletRequest original = proxy.getOriginalRequest();
        List<Target> next = Forking.takeNext(original);
        if (next == null) {
            return false;
        }
        try {
            addBranches(proxy, next);
            proxy.startProxy();
            counters.count("route-next-q-class");
            return true;
        } catch (IllegalStateException e) { // the caller CANCELled, or the transaction ended meanwhile
            counters.problem("proxy-too-late", "next q class of " + original.getRequestURI() + ": " + e.getMessage());
            return false;
        }
    }

    /** p2psip.proxy.relay: the request on to its Request-URI as it is, as an outbound proxy does. */
    private void relay(SipServletRequest request, URI target) {
        startProxy(request, List.of(new Target(target.toString(), List.of(), 0, Long.MAX_VALUE)), false, "route-relayed");
    }

    /**
     * Proxies {@code request} to {@code targets} all at once (one q class: RFC 3261 §16.6 lets
     * them ring together; the container CANCELs the others at the first 2xx), each branch routed
     * through its Path, record-routed so that the dialog passes through this node. With lower
     * classes left, or a branch on a flow, the proxy is supervised, so that {@link #failed} sees the
     * best final response and {@link #flowFailed} a flow's 430. Each branch rings for at most
     * p2psip.proxy.branch-timeout, answered or not; {@link #timedOut} hears when it ran out.
     */
    private void startProxy(SipServletRequest request, List<Target> targets, boolean supervised,
                            String counter) {
        try {
            Proxy proxy = request.getProxy();
            proxy.setRecordRoute(true);
            proxy.setSupervised(supervised);
            proxy.setParallel(true);
            proxy.setProxyTimeout(branchTimeoutSeconds);
            addBranches(proxy, targets);
            proxy.startProxy();
            counters.count(counter);
        } catch (TooManyHopsException e) {
            refuse(request, Refusal.TOO_MANY_HOPS);
        } catch (IllegalStateException e) {
            counters.problem("proxy-too-late", request.getMethod() + " ended before it was proxied: " + e.getMessage());
        }
    }

    private void addBranches(Proxy proxy, List<Target> targets) {
        List<Target> read = new ArrayList<>(targets.size());
        List<URI> uris = new ArrayList<>(targets.size());
        for (Target target : targets) {
            URI uri = uriOf(target.uri());
            if (uri != null) {
                read.add(target);
                uris.add(uri);
            }
        }
        List<ProxyBranch> branches = proxy.createProxyBranches(uris);
        for (int i = 0; i < branches.size(); i++) {
            pushPath(branches.get(i).getRequest(), read.get(i).path());
        }
    }

    /** The option tags of the request's Proxy-Require headers, comma-separated; "" for none. */
    private static String proxyRequired(SipServletRequest request) {
        var tags = new ArrayList<String>();
        request.getHeaders("Proxy-Require").forEachRemaining(value -> {
            for (String tag : value.split(",")) {
                if (!tag.isBlank()) {
                    tags.add(tag.strip());
                }
            }
        });
        return String.join(", ", tags);
    }

    /** The Request-URI's gr parameter (RFC 5627: present, maybe empty, on a GRUU); null when absent. */
    private static String gruuParameter(URI target) {
        return target instanceof SipURI sip ? sip.getParameter("gr") : null;
    }

    /** Whether the request's From is a user of a served domain: whom p2psip.proxy.relay is for. */
    private boolean fromOurUser(SipServletRequest request) {
        String caller = Aors.of(request.getFrom().getURI(), domains);
        return caller != null && domains.serves(Aors.domainOf(caller));
    }

    /** Routes the branch through the registration's Path (RFC 3327 §5.3), first entry on top. */
    private void pushPath(SipServletRequest branch, List<String> path) {
        for (ListIterator<String> it = path.listIterator(path.size()); it.hasPrevious(); ) {
            String entry = it.previous();
            try {
                Address hop = factory.createAddress(entry);
                branch.pushRoute(hop);
            } catch (ServletParseException e) {
                counters.problem("stored-path-unparsable", entry);
            }
        }
    }

    private URI uriOf(String contact) {
        try {
            return factory.createURI(contact);
        } catch (ServletParseException e) {
            counters.problem("stored-contact-unparsable", contact);
            return null;
        }
    }

    /** A stored contact read by the container's parser, which makes the branches too; null when it cannot. */
    private UriParts uriPartsOf(String contact) {
        URI uri = uriOf(contact);
        return uri == null ? null : uriParts(uri);
    }

    /** Answers with one of the proxy's refusals, counted (and logged once when it points at a mistake). */
    private void refuse(SipServletRequest request, Refusal refusal) {
        if (refusal.logged) {
            counters.problem(refusal.counter, request.getMethod() + " " + request.getRequestURI());
        } else {
            counters.count(refusal.counter);
        }
        finish(request, refusal.status, refusal.reason);
    }

    /** Answers with the node's own final response and frees the request's session. */
    private void finish(SipServletRequest request, int status, String reason) {
        answers.status(request, status, reason);
        answers.release(request);
    }
}
