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
 * Registration and location over a {@link Dht}: applies the {@link Registrar} rules to an AOR's
 * record, writes with compare-and-set and, when another node wrote the AOR first, applies them
 * again to the record the refused write answered. Never blocks: every method returns a stage that completes within the deadline,
 * failing with {@link DhtException} when the DHT does not answer in time. Thread-safe.
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

    public RegistrarService(Dht dht, Config config, Clock clock) {
        this.dht = dht;
        this.registrar = new Registrar(config);
        this.gruus = Gruus.from(config);
        this.clock = clock;
        this.casAttempts = config.get(RegistrarOptions.CAS_ATTEMPTS);
        this.deadline = config.get(RegistrarOptions.DHT_DEADLINE);
    }

    /**
     * Applies a REGISTER atomically to its AOR. Where the DHT {@link Dht#appliesChanges applies
     * changes} the REGISTER travels to the node storing the AOR, which applies the same rules
     * there: one round trip, a refresh included. Otherwise a REGISTER that changes bindings starts from the
     * guess that the AOR has no record and writes at once: right for a first registration, which
     * then costs one DHT round trip instead of a read and a write; when wrong, the refused write
     * answers the record (see {@link Dht#putOrCurrent}) and the change is applied to it. A query,
     * and a change whose outcome on the guess is not a write, read first. What the request alone
     * refuses is refused before any DHT work.
     */
    public CompletionStage<Reply> register(RegisterRequest request) {
        Rejection unfit = registrar.refusalOf(request);
        if (unfit != null) {
            return CompletableFuture.completedFuture(new Reply.Refused(unfit, 0));
        }
        CompletionStage<Reply> work = request.isQuery() ? readAndApply(request, 1)
                : dht.appliesChanges() ? applyAtOwner(request, RegisterCodec.encode(request), 1)
                : apply(request, BindingSet.absent(request.aor()), true, 1);
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
     * binding"): the binding's other flows and the AOR's other bindings stay. Compare-and-set as a
     * REGISTER's write; completes with whether a binding was removed.
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

    private CompletionStage<Reply> readAndApply(RegisterRequest request, int attempt) {
        return dht.get(request.aor()).thenCompose(current -> apply(request, current, false, attempt));
    }

    /**
     * Applies the rules to {@code current}, the record read or (when {@code guessed}) assumed, and
     * writes the outcome; a refused write applies them again to the record it answered. Refusals
     * and unchanged answers are only given on a record read: a guess may not speak for the store.
     */
    private CompletionStage<Reply> apply(RegisterRequest request, BindingSet current, boolean guessed, int attempt) {
        long now = clock.millis();
        Outcome outcome = registrar.apply(request, current, now);
        if (guessed && !(outcome instanceof Outcome.Store)) {
            return readAndApply(request, attempt);
        }
        Reply withoutWriting = withoutWriting(request, outcome, now);
        if (withoutWriting != null) {
            return CompletableFuture.completedFuture(withoutWriting);
        }
        BindingSet next = ((Outcome.Store) outcome).next();
        return dht.putOrCurrent(next).thenCompose(answered -> {
            if (answered.isEmpty()) {
                return CompletableFuture.completedFuture(registered(request, next.bindings(), now));
            }
            if (guessed) {
                return apply(request, answered.get(), false, attempt); // a wrong guess lost no race
            }
            if (attempt >= casAttempts) {
                throw new DhtException(DhtException.Reason.OVERLOADED,
                        attempt + " writers in a row updated " + request.aor() + " first");
            }
            return apply(request, answered.get(), false, attempt + 1);
        });
    }

    /**
     * Sends the change to the AOR's owner, which applied it when the answer says written. When it
     * wrote nothing, the rules applied here to the record it answered give the reply (a refusal, or
     * the bindings unchanged); should they want a write after all (a binding expired between the
     * two clocks, or the record moved on), the change is sent again.
     */
    private CompletionStage<Reply> applyAtOwner(RegisterRequest request, byte[] change, int attempt) {
        return dht.update(request.aor(), change).thenCompose(updated -> {
            long now = clock.millis();
            if (updated.written()) {
                return CompletableFuture.completedFuture(registered(request, updated.record().bindings(), now));
            }
            Reply withoutWriting = withoutWriting(request, registrar.apply(request, updated.record(), now), now);
            if (withoutWriting != null) {
                return CompletableFuture.completedFuture(withoutWriting);
            }
            if (attempt >= casAttempts) {
                throw new DhtException(DhtException.Reason.OVERLOADED,
                        "the owner of " + request.aor() + " wrote nothing " + attempt + " times where this node would");
            }
            return applyAtOwner(request, change, attempt + 1);
        });
    }

    /** The reply to an outcome that writes nothing (a refusal, or the bindings unchanged); null for a Store. */
    private Reply withoutWriting(RegisterRequest request, Outcome outcome, long now) {
        if (outcome instanceof Outcome.Refused refused) {
            return new Reply.Refused(refused.rejection(), refused.minExpires());
        }
        if (outcome instanceof Outcome.Unchanged unchanged) {
            return registered(request, unchanged.current().bindings(), now);
        }
        return null;
    }

    /** The 200's bindings, and their GRUUs when the client supports them (RFC 5627 §5.2). */
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
