package org.p2psip.registrar;

import java.util.ArrayList;
import java.util.List;
import org.p2psip.config.Config;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;

/**
 * The registrar rules of RFC 3261 §10.3 steps 6-8, as a pure function of a REGISTER and the
 * AOR's current bindings. One method per case, as Kamailio's save.c has: {@link #wildcard},
 * {@link #query}, {@link #update}. Nothing here does I/O; {@link RegistrarService} reads and
 * writes the DHT around it. Thread-safe (immutable).
 */
public final class Registrar {

    private final long minExpires;
    private final long maxExpires;
    private final long defaultExpires;
    private final int maxContacts;
    private final long retentionMillis;
    private final boolean pathRequiresSupported;

    public Registrar(Config config) {
        this.minExpires = config.get(RegistrarOptions.MIN_EXPIRES);
        this.maxExpires = config.get(RegistrarOptions.MAX_EXPIRES);
        this.defaultExpires = config.get(RegistrarOptions.DEFAULT_EXPIRES);
        this.maxContacts = config.get(RegistrarOptions.MAX_CONTACTS);
        this.retentionMillis = config.get(RegistrarOptions.RETENTION).toMillis();
        this.pathRequiresSupported = config.get(RegistrarOptions.PATH_REQUIRES_SUPPORTED);
    }

    /** Decides a REGISTER against {@code current}, the AOR's live bindings read at {@code now}. */
    public Outcome apply(RegisterRequest request, BindingSet current, long now) {
        Rejection unfit = refusalOf(request);
        if (unfit != null) {
            return refuse(unfit);
        }
        if (request.wildcard()) {
            return wildcard(request, current, now);
        }
        if (request.isQuery()) {
            return query(current);
        }
        return update(request, current, now);
    }

    /**
     * What the request alone decides, whatever is stored: a refusal, or null. A Path the client
     * did not say it supports is refused, RFC 3327 §5.3's recommended policy: the UA so learns
     * that a proxy on the way added a Path it cannot see (the RFC leaves it to local policy:
     * {@code p2psip.registrar.path-requires-supported}). An outbound client whose first hop does
     * not keep flows is refused 439 (RFC 5626 §6); with no Path this registrar is its first hop,
     * and its reg-id is kept but no flow promised.
     */
    Rejection refusalOf(RegisterRequest request) {
        if (pathRequiresSupported && !request.path().isEmpty() && !request.supports("path")) {
            return Rejection.PATH_NOT_SUPPORTED;
        }
        if (request.asksOutbound() && !request.path().isEmpty() && !request.firstHopOutbound()) {
            return Rejection.FIRST_HOP_LACKS_OUTBOUND; // RFC 5626 §6: its flows could not be kept
        }
        return null;
    }

    /** {@code Contact: *}: only with Expires: 0 and alone; removes every binding (step 6). */
    Outcome wildcard(RegisterRequest request, BindingSet current, long now) {
        if (!request.contacts().isEmpty()) {
            return refuse(Rejection.WILDCARD_NOT_ALONE);
        }
        if (request.expires() == null || request.expires() != 0) {
            return refuse(Rejection.WILDCARD_WITHOUT_EXPIRES_ZERO);
        }
        for (Binding b : current.bindings()) {
            if (isOutOfOrder(b, request)) {
                return refuse(Rejection.OUT_OF_ORDER);
            }
        }
        return store(current, List.of(), now);
    }

    /** No Contact: a query; nothing changes (§10.2.3). */
    Outcome query(BindingSet current) {
        return new Outcome.Unchanged(current);
    }

    /**
     * Adds, refreshes and removes the request's contacts (steps 7 and 8), all or nothing.
     *
     * <p>A contact the request lists twice (two equivalent URIs, or one instance twice) is one
     * binding, the later copy's. Step 7 takes the contacts in turn, each one tentatively adding,
     * updating or removing a binding, and applies the result as one: a later copy so updates what
     * an earlier one tentatively wrote, and the last word stays. Its Call-ID/CSeq check catches
     * requests that come late or twice, and is made against bindings stored before; a binding the
     * request itself tentatively wrote carries the request's own Call-ID and CSeq, and checked it
     * would make the second copy look out of order (500 to a well-meant REGISTER). Refusing the
     * repeat with 400 instead would have no ground in §10.3, which nowhere forbids it.
     */
    Outcome update(RegisterRequest request, BindingSet current, long now) {
        List<Binding> next = new ArrayList<>(current.bindings());
        List<Binding> written = new ArrayList<>();
        for (ContactSpec contact : request.contacts()) {
            long seconds = expiresOf(contact, request);
            if (seconds != 0 && seconds < minExpires) {
                return new Outcome.Refused(Rejection.INTERVAL_TOO_BRIEF, minExpires);
            }
            int existing = indexOf(next, contact);
            if (existing >= 0) {
                Binding stored = next.get(existing);
                boolean thisRequests = written.stream().anyMatch(b -> b == stored);
                if (!thisRequests && isOutOfOrder(stored, request)) {
                    return refuse(Rejection.OUT_OF_ORDER);
                }
                next.remove(existing);
            }
            if (seconds > 0) {
                Binding binding = bind(request, contact, Math.min(seconds, maxExpires), now);
                next.add(binding);
                written.add(binding);
            }
        }
        if (next.size() > maxContacts) {
            return refuse(Rejection.TOO_MANY_CONTACTS);
        }
        return store(current, next, now);
    }

    /**
     * Writes {@code next} unless it is what is stored. A removal that finds nothing to remove
     * ({@code Contact: *}, or expires 0 for contacts not bound) so writes nothing: for an AOR
     * never registered a write would create a record, which would make calls to it 480 (known,
     * not reachable) instead of 404 for as long as the retention. Where a write happens it
     * carries the version read, so compare-and-set still orders it against other nodes' writes.
     */
    private Outcome store(BindingSet current, List<Binding> next, long now) {
        if (next.equals(current.bindings())) {
            return new Outcome.Unchanged(current);
        }
        return new Outcome.Store(current.next(next, retainUntil(current, next, now)));
    }

    /** The interval a contact asks for: its expires parameter, else the Expires header, else the default. */
    long expiresOf(ContactSpec contact, RegisterRequest request) {
        if (contact.expires() != null) {
            return contact.expires();
        }
        return request.expires() != null ? request.expires() : defaultExpires;
    }

    /**
     * Same Call-ID and a CSeq not higher than the stored one: a late or replayed REGISTER, which
     * RFC 3261 §10.3 step 7 says must abort the whole update.
     */
    static boolean isOutOfOrder(Binding stored, RegisterRequest request) {
        return stored.callId().equals(request.callId()) && request.cseq() <= stored.cseq();
    }

    /**
     * Which stored binding a contact refreshes: the one with the same {@code +sip.instance} and
     * reg-id when the contact has an instance (RFC 5626), else the one with an equivalent URI
     * (RFC 3261 §19.1.4: {@link SipUri}).
     */
    static int indexOf(List<Binding> bindings, ContactSpec contact) {
        for (int i = 0; i < bindings.size(); i++) {
            Binding b = bindings.get(i);
            boolean same = contact.instance().isEmpty()
                    ? b.instance().isEmpty() && SipUri.equivalent(b.contact(), contact.uri())
                    : b.instance().equals(contact.instance()) && b.regId() == contact.regId();
            if (same) {
                return i;
            }
        }
        return -1;
    }

    private Binding bind(RegisterRequest request, ContactSpec contact, long seconds, long now) {
        return new Binding(request.aor(), contact.uri(), now + seconds * 1000, contact.q(), request.callId(),
                request.cseq(), request.path(), contact.instance(), contact.regId());
    }

    /** The record is kept until its last binding expires plus the retention, and never shortened. */
    private long retainUntil(BindingSet current, List<Binding> next, long now) {
        long lastExpiry = next.stream().mapToLong(Binding::expiresAt).max().orElse(now);
        return Math.max(current.retainUntil(), lastExpiry + retentionMillis);
    }

    private static Outcome refuse(Rejection rejection) {
        return new Outcome.Refused(rejection, 0);
    }
}
