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
import org.p2psip.dht.Binding;
import org.p2psip.registrar.Domains;
import org.p2psip.registrar.Location;
import org.p2psip.registrar.RegistrarOptions;
import org.p2psip.registrar.Gruu;
import org.p2psip.registrar.RegistrarService;

/**
 * Requests out of a dialog other than REGISTER (RFC 3261 §16): an OPTIONS to the node itself
 * is answered here; anything else is for an AOR (or a GRUU: that instance's bindings), looked up
 * in the DHT and proxied to its contacts, the highest q class first, the contacts of one class at
 * once, record-routing so that the dialog's later requests pass through this node; or, when an
 * INVITE asks for it (RFC 3841 Request-Disposition: redirect), answered 302 with those contacts
 * instead ({@link Redirection}), the same refusals applying first. 404 for an AOR never registered, 480 when none of its
 * bindings is live (or, for a sips: Request-URI, none is sips:), 483 when Max-Forwards is spent,
 * 482 when the only contacts are this node.
 */
final class Routing {

    private final RegistrarService service;
    private final Admission admission;
    private final Answers answers;
    private final Counters counters;
    private final SipFactory factory;
    private final ContainerThreads threads;
    private final int branchTimeoutSeconds;
    private final Domains domains;
    private final Authentication authentication;
    private final boolean relay;
    private final Clock clock;

    Routing(RegistrarService service, Admission admission, Answers answers, Counters counters, SipFactory factory,
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
    }

    void handle(SipServletRequest request) {
        if (request.getMaxForwards() == 0) {
            counters.problem("too-many-hops", request.getMethod() + " " + request.getRequestURI());
            finish(request, 483, "Too Many Hops");
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
        if (location instanceof Location.Unknown) {
            counters.count("route-404");
            finish(request, 404, "Not Found");
        } else if (location instanceof Location.Unavailable) {
            counters.count("route-480");
            finish(request, 480, "Temporarily Unavailable");
        } else {
            proxy(request, ((Location.Found) location).byPreference());
        }
    }

    private void proxy(SipServletRequest request, List<Binding> bindings) {
        // a sips: request must reach its callee over TLS all the way (RFC 5630 §3.1.3): its sips contacts only
        boolean secure = "sips".equalsIgnoreCase(request.getRequestURI().getScheme());
        List<List<Forking.Target>> classes = classes(bindings, secure);
        if (classes.isEmpty() && secure && !bindings.isEmpty()) {
            counters.count("route-480-no-sips");
            finish(request, 480, "No Secure Contact");
            return;
        }
        if (classes.isEmpty()) {
            counters.problem("loop-detected", request.getRequestURI() + " is bound only to this node");
            finish(request, 482, "Loop Detected");
            return;
        }
        if (Redirection.asked(request)) {
            // the front keeps this call's transaction and forks it itself (RFC 3841 §9.1): it gets
            // the very contacts this proxy would ring, in the order it would ring them
            counters.count("route-redirected");
            answers.moved(request, classes.stream().flatMap(List::stream).toList(), clock.millis());
            answers.release(request);
            return;
        }
        Forking.keepLater(request, classes.subList(1, classes.size()));
        boolean flows = classes.get(0).stream().anyMatch(t -> !t.path().isEmpty());
        startProxy(request, classes.get(0), classes.size() > 1 || flows, "route-proxied");
    }

    /**
     * The contacts this proxy rings, one q class after another, each instance's later flows one
     * by one after them (RFC 5626 §5.3); the node itself left out, and for a sips: Request-URI
     * ({@code secure}) every contact but the sips ones. Empty when none is left.
     */
    List<List<Forking.Target>> classes(List<Binding> bindings, boolean secure) {
        List<Forking.Target> targets = new ArrayList<>();
        List<Forking.Target> laterFlows = new ArrayList<>();
        var instances = new java.util.HashSet<String>();
        for (Binding binding : bindings) {
            URI uri = uriOf(binding);
            if (uri == null || secure && !"sips".equalsIgnoreCase(uri.getScheme())) {
                continue;
            }
            if (!isThisNode(uri)) {
                // one flow per instance at a time (RFC 5626 §5.3), its latest first; the others wait
                boolean firstOfInstance = binding.instance().isEmpty() || instances.add(binding.instance());
                (firstOfInstance ? targets : laterFlows).add(new Forking.Target(uri, binding.path(), binding.q(),
                        binding.expiresAt()));
            }
        }
        if (targets.isEmpty()) {
            return List.of();
        }
        List<List<Forking.Target>> classes = new ArrayList<>(Forking.byQ(targets));
        laterFlows.forEach(flow -> classes.add(List.of(flow)));
        return classes;
    }

    /**
     * A branch's flow failed (430 from the edge proxy that holds it, RFC 5626 §5.3): its binding
     * is removed, so that no later request tries it, and the search goes on. The caller never
     * hears 430, which speaks of a hop it does not know: a best response 430 goes up as 480.
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
        if (!response.isBranchResponse()) {
            response.setStatus(480, "Temporarily Unavailable");
        }
    }

    /**
     * The best final response of a proxied request, when every branch of its q class failed: if it
     * is no 6xx (which ends the search, RFC 3261 §16.7) and a lower class is left, rings that
     * class, and the container waits for its answers instead of sending this one upstream.
     */
    void failed(SipServletResponse best) {
        if (best.getStatus() < 600) {
            ringNextClass(best.getProxy());
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
        if (Forking.classFailed(proxy)) {
            ringNextClass(proxy);
        }
    }

    private void ringNextClass(Proxy proxy) {
        SipServletRequest original = proxy.getOriginalRequest();
        List<Forking.Target> next = Forking.takeNext(original);
        if (next == null) {
            return;
        }
        try {
            addBranches(proxy, next);
            proxy.startProxy();
            counters.count("route-next-q-class");
        } catch (IllegalStateException e) { // the caller CANCELled, or the transaction ended meanwhile
            counters.problem("proxy-too-late", "next q class of " + original.getRequestURI() + ": " + e.getMessage());
        }
    }

    /** p2psip.proxy.relay: the request on to its Request-URI as it is, as an outbound proxy does. */
    private void relay(SipServletRequest request, URI target) {
        startProxy(request, List.of(new Forking.Target(target, List.of(), 0, Long.MAX_VALUE)), false, "route-relayed");
    }

    /**
     * Proxies {@code request} to {@code targets} all at once (one q class: RFC 3261 §16.6 lets
     * them ring together; the container CANCELs the others at the first 2xx), each branch routed
     * through its Path, record-routed so that the dialog passes through this node. With lower
     * classes left, or a branch on a flow, the proxy is supervised, so that {@link #failed} sees the
     * best final response and {@link #flowFailed} a flow's 430. Each branch rings for at most
     * p2psip.proxy.branch-timeout, answered or not; {@link #timedOut} hears when it ran out.
     */
    private void startProxy(SipServletRequest request, List<Forking.Target> targets, boolean supervised,
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
            finish(request, 483, "Too Many Hops");
        } catch (IllegalStateException e) {
            counters.problem("proxy-too-late", request.getMethod() + " ended before it was proxied: " + e.getMessage());
        }
    }

    private void addBranches(Proxy proxy, List<Forking.Target> targets) {
        List<ProxyBranch> branches = proxy.createProxyBranches(targets.stream().map(Forking.Target::uri).toList());
        for (int i = 0; i < branches.size(); i++) {
            pushPath(branches.get(i).getRequest(), targets.get(i).path());
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

    private URI uriOf(Binding binding) {
        try {
            return factory.createURI(binding.contact());
        } catch (ServletParseException e) {
            counters.problem("stored-contact-unparsable", binding.contact());
            return null;
        }
    }

    private boolean isThisNode(URI uri) {
        return uri instanceof SipURI sip && domains.isNode(sip.getHost(), sip.getPort());
    }

    /** Answers with the node's own final response and frees the request's session. */
    private void finish(SipServletRequest request, int status, String reason) {
        answers.status(request, status, reason);
        answers.release(request);
    }
}
