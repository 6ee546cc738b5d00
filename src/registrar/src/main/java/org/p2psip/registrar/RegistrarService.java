package org.p2psip.registrar;

import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.p2psip.config.Config;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.Dht;
import org.p2psip.dht.DhtException;

/**
 * Registration and location over a {@link Dht} whose owners apply changes ({@link
 * Dht#appliesChanges}): a REGISTER travels to the node storing its AOR, which applies the {@link
 * Registrar} rules there ({@link RegistrarOwnerRules}) and answers their outcome with the record; this
 * node answers the client from that outcome, so the rules run once per REGISTER and it is sent
 * once. Never blocks: every method returns a stage that completes within the deadline, failing
 * with {@link DhtException} when the DHT does not answer in time. Thread-safe.
 */
public final class RegistrarService {

    private static final Comparator<Binding> BY_PREFERENCE =
            Comparator.comparingInt(Binding::rank).reversed().thenComparing(Binding::expiresAt, Comparator.reverseOrder());

    private final Dht dht;
    private final Registrar registrar;
    private final Clock clock;
    private final int casAttempts;
    private final Duration deadline;
    private final Gruus gruus;

    /** @throws IllegalArgumentException when {@code dht} applies no changes at the owner (built without the registrar's rules) */
    public RegistrarService(Dht dht, Config config, Clock clock) {
        if (!dht.appliesChanges()) {
            throw new IllegalArgumentException(dht.getClass().getSimpleName()
                    + " applies no changes at the owner: build it with the registrar's rules (RegistrarOwnerRules)");
        }
        this.dht = dht;
        this.registrar = new Registrar(config);
        this.gruus = Gruus.from(config);
        this.clock = clock;
        this.casAttempts = config.get(RegistrarOptions.CAS_ATTEMPTS);
        this.deadline = config.get(RegistrarOptions.DHT_DEADLINE);
    }

    /**
     * Applies a REGISTER atomically to its AOR: it travels to the node storing the AOR, which
     * applies the rules there, in one round trip whether it adds, refreshes, removes or is
     * refused, and answers their outcome. A query reads the record and the rules answer it here.
     * What the request alone refuses is refused before any DHT work.
     */
    public CompletionStage<Reply> register(RegisterRequest request) {
        Rejection unfit = registrar.refusalOf(request);
        if (unfit != null) {
            return CompletableFuture.completedFuture(new Reply.Refused(unfit, 0));
        }
        CompletionStage<Reply> work = request.isQuery() ? query(request) : applyAtOwner(request);
        return withDeadline(work, "REGISTER of " + request.aor());
    }

    /** The contacts to proxy a request for {@code aor} to. */
    public CompletionStage<Location> locate(String aor) {
        return withDeadline(dht.get(aor).thenApply(RegistrarService::locationOf), "lookup of " + aor);
    }

    /**
     * The contacts to proxy a request for a GRUU to (RFC 5627 §6.1): only its instance's, and for
     * a temporary GRUU only those registered under the Call-ID it was issued for. Unknown (404)
     * when the AOR is, or when the instance registered since with another Call-ID, which ended
     * the temporary GRUU; Unavailable (480) when the AOR is known but the instance has no live
     * binding.
     */
    public CompletionStage<Location> locate(Gruu gruu) {
        return withDeadline(dht.get(gruu.aor()).thenApply(set -> locationOf(gruu, set)), "lookup of a GRUU of " + gruu.aor());
    }

    /**
     * Removes the binding of {@code aor} whose contact is {@code contact} (RFC 3261 §19.1.4
     * equivalence), whose flow an edge proxy answered 430 (RFC 5626 §5.3, "a flow's failure removing only its
     * binding"): the binding's other flows and the AOR's other bindings stay. A read, then a
     * compare-and-set put of the record without it, read again when another writer came first, at
     * most {@code p2psip.registrar.cas-attempts} times: no REGISTER says this removal, so the
     * owner's rules, which read REGISTERs, cannot apply it. Completes with whether a binding was
     * removed.
     */
    public CompletionStage<Boolean> dropFlow(String aor, String contact) {
        return withDeadline(dropFlow(aor, contact, 1), "removal of a failed flow of " + aor);
    }

    private CompletionStage<Boolean> dropFlow(String aor, String contact, int attempt) {
        return dht.get(aor).thenCompose(current -> {
            List<Binding> kept = current.bindings().stream()
                    .filter(b -> !SipUri.equivalent(b.contact(), contact)).toList();
            if (kept.size() == current.bindings().size()) {
                return CompletableFuture.completedFuture(false);
            }
            return dht.put(current.next(kept, current.retainUntil())).thenCompose(stored -> stored
                    ? CompletableFuture.completedFuture(true)
                    : attempt >= casAttempts ? CompletableFuture.completedFuture(false)
                    : dropFlow(aor, contact, attempt + 1));
        });
    }

    /** The GRUUs this node issues and resolves, under the overlay's secret: the proxy reads Request-URIs with it. */
    public Gruus gruus() {
        return gruus;
    }

    static Location locationOf(Gruu gruu, BindingSet set) {
        if (!set.exists()) {
            return new Location.Unknown();
        }
        List<Binding> ofInstance = set.bindings().stream().filter(gruu::names).toList();
        if (ofInstance.isEmpty()) {
            return new Location.Unavailable();
        }
        List<Binding> reached = ofInstance.stream().filter(gruu::reaches).sorted(BY_PREFERENCE).toList();
        return reached.isEmpty() ? new Location.Unknown() : new Location.Found(reached);
    }

    static Location locationOf(BindingSet set) {
        if (!set.exists()) {
            return new Location.Unknown();
        }
        if (set.bindings().isEmpty()) {
            return new Location.Unavailable();
        }
        return new Location.Found(set.bindings().stream().sorted(BY_PREFERENCE).toList());
    }

    /** A query (no Contact): the rules answer it on the record read, with nothing to write. */
    private CompletionStage<Reply> query(RegisterRequest request) {
        return dht.get(request.aor()).thenApply(current -> {
            long now = clock.millis();
            Outcome outcome = registrar.apply(request, current, now);
            if (outcome instanceof Outcome.Refused refused) {
                return refusal(refused);
            }
            if (outcome instanceof Outcome.Unchanged unchanged) {
                return registered(request, unchanged.current().bindings(), now);
            }
            throw new IllegalStateException("the rules wrote on a query of " + request.aor());
        });
    }

    /**
     * Sends the REGISTER to the AOR's owner, which applied the rules there, and answers from what
     * they decided: their refusal, or 200 with the record as it stands after them (written or left
     * unchanged). Nothing is applied or sent again here.
     */
    private CompletionStage<Reply> applyAtOwner(RegisterRequest request) {
        return dht.update(request.aor(), RegisterCodec.encode(request)).thenApply(updated -> {
            Outcome.Refused refused = RegistrarOwnerRules.refusalIn(updated.answer());
            return refused != null ? refusal(refused)
                    : registered(request, updated.record().bindings(), clock.millis());
        });
    }

    /** The 200's bindings, and their GRUUs when the client supports them (RFC 5627 §5.2). */
    /** The reply to the rules' refusal, wherever they ran. */
    private static Reply refusal(Outcome.Refused refused) {
        return new Reply.Refused(refused.rejection(), refused.minExpires());
    }

    private Reply registered(RegisterRequest request, List<Binding> bindings, long now) {
        List<Binding> live = bindings.stream().filter(b -> b.isLiveAt(now)).toList();
        return new Reply.Registered(live, now, request.supports("gruu") ? gruus.issueFor(live) : Map.of());
    }

    /** Bounds a whole DHT exchange, and turns every failure into a DhtException for the caller. */
    private <T> CompletionStage<T> withDeadline(CompletionStage<T> work, String what) {
        return work.toCompletableFuture()
                .orTimeout(deadline.toMillis(), TimeUnit.MILLISECONDS)
                .exceptionallyCompose(failure -> CompletableFuture.failedFuture(asDhtException(failure, what)));
    }

    private DhtException asDhtException(Throwable failure, String what) {
        Throwable cause = DhtException.unwrap(failure);
        if (cause instanceof DhtException dhtException) {
            return dhtException;
        }
        if (cause instanceof TimeoutException) {
            return new DhtException(DhtException.Reason.TIMEOUT, what + " took longer than " + deadline.toMillis() + " ms");
        }
        return new DhtException(DhtException.Reason.STORAGE, what + " failed: " + cause, cause);
    }
}
