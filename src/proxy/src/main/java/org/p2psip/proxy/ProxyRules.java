package org.p2psip.proxy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.p2psip.dht.Binding;
import org.p2psip.registrar.Domains;
import org.p2psip.registrar.Location;

/**
 * Where a request for an AOR goes, RFC 3261 §16 as the node keeps it, free of the servlet API:
 * the refusals before any lookup, then, from the AOR's {@link Location}, a refusal (404, 480,
 * 482), a redirect (RFC 3841) or the groups of contacts to fork to, highest q first. The servlet
 * carries the {@link Decision} out with the container's proxy; {@link Search} says what the
 * branches' answers mean. Immutable and thread-safe.
 */
public final class ProxyRules {

    private final Domains domains;

    /** {@code domains} says which contacts are this node itself. */
    public ProxyRules(Domains domains) {
        this.domains = domains;
    }

    /** The refusal a request gets before any lookup: 483 when its Max-Forwards is spent (§16.3 step 3). */
    public static Optional<Refusal> refusedBeforeLookup(Request request) {
        return request.maxForwards() == 0 ? Optional.of(Refusal.TOO_MANY_HOPS) : Optional.empty();
    }

    /**
     * What to do with {@code request} for an AOR found at {@code location}. {@code read} reads a
     * stored contact's URI, null when it cannot (such a binding is skipped, the reader says so).
     */
    public Decision decide(Request request, Location location, Function<String, UriParts> read) {
        if (location instanceof Location.Unknown) {
            return new Decision.Refuse(Refusal.NOT_FOUND);
        }
        if (location instanceof Location.Unavailable) {
            return new Decision.Refuse(Refusal.UNAVAILABLE);
        }
        List<Binding> bindings = ((Location.Found) location).byPreference();
        List<List<Target>> groups = groups(request.requestUri().secure(), bindings, read);
        if (groups.isEmpty()) {
            // a sips: request must reach its callee over TLS all the way (RFC 5630 §3.1.3)
            boolean secureOnly = request.requestUri().secure() && !bindings.isEmpty();
            return new Decision.Refuse(secureOnly ? Refusal.NO_SECURE_CONTACT : Refusal.LOOP);
        }
        if (request.asksRedirect()) {
            // the front keeps this call's transaction and forks it itself (RFC 3841 §9.1): it gets
            // the very contacts this proxy would ring, in the order it would ring them
            return new Decision.Redirect(groups.stream().flatMap(List::stream).toList());
        }
        boolean flows = groups.stream().flatMap(List::stream).anyMatch(t -> !t.path().isEmpty());
        return new Decision.Fork(groups, groups.size() > 1 || flows);
    }

    /**
     * The groups to ring in turn: the bindings' contacts cut where q changes (§16.6: one q value
     * rings at once), then each later flow of an instance alone (RFC 5626 §5.3: one flow per
     * instance at a time, its latest first). A sips: request keeps only sips: contacts; a contact
     * that is this node is left out, so that the node never proxies to itself.
     */
    private List<List<Target>> groups(boolean secure, List<Binding> bindings, Function<String, UriParts> read) {
        List<Target> first = new ArrayList<>();
        List<Target> laterFlows = new ArrayList<>();
        Set<String> instances = new HashSet<>();
        for (Binding binding : bindings) {
            UriParts uri = read.apply(binding.contact());
            if (uri == null || secure && !uri.secure() || isThisNode(uri)) {
                continue;
            }
            boolean firstOfInstance = binding.instance().isEmpty() || instances.add(binding.instance());
            (firstOfInstance ? first : laterFlows).add(new Target(binding.contact(), binding.path(), binding.q(),
                    binding.expiresAt()));
        }
        List<List<Target>> groups = byQ(first);
        laterFlows.forEach(flow -> groups.add(List.of(flow)));
        return groups;
    }

    /** Targets already in order of preference (q descending), cut where q changes. */
    static List<List<Target>> byQ(List<Target> byPreference) {
        List<List<Target>> groups = new ArrayList<>();
        for (Target target : byPreference) {
            List<Target> last = groups.isEmpty() ? null : groups.get(groups.size() - 1);
            if (last == null || last.get(0).q() != target.q()) {
                last = new ArrayList<>();
                groups.add(last);
            }
            last.add(target);
        }
        return groups;
    }

    private boolean isThisNode(UriParts uri) {
        return uri.host() != null && domains.isNode(uri.host(), uri.port());
    }
}
