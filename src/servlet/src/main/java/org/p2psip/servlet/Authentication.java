package org.p2psip.servlet;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.servlet.ServletException;
import javax.servlet.sip.SipServletRequest;
import org.p2psip.auth.Algorithm;
import org.p2psip.auth.AuthOptions;
import org.p2psip.auth.Authenticator;
import org.p2psip.auth.Nonces;
import org.p2psip.auth.UsersFile;
import org.p2psip.config.Config;
import org.p2psip.config.NodeOptions;
import org.p2psip.registrar.Domains;

/**
 * Digest authentication on the servlet API: the {@link Authenticator}'s verdict on a REGISTER
 * (and, with {@code p2psip.auth.invite}, on an INVITE from a user of a served domain) turned into
 * 401 or 407, 403 or 400, and the users file read again on a timer of its own. Off by
 * {@code p2psip.auth.enabled}: then every request passes, and the node said so at start.
 */
final class Authentication implements AutoCloseable {

    private static final Logger LOG = System.getLogger(Authentication.class.getName());
    private final Authenticator authenticator;
    private final boolean invites;
    private final ScheduledExecutorService reloads;
    private final Answers answers;
    private final RequestCounters counters;
    private final Clock clock;
    /** With authentication on: the file's users and the warm-up's, the nonces, what is offered first. */
    private final WarmupUsers users;
    private final Nonces nonces;
    private final Algorithm preferred;

    private Authentication(Authenticator authenticator, boolean invites, ScheduledExecutorService reloads,
                           Answers answers, RequestCounters counters, Clock clock, WarmupUsers users, Nonces nonces,
                           Algorithm preferred) {
        this.users = users;
        this.nonces = nonces;
        this.preferred = preferred;
        this.authenticator = authenticator;
        this.invites = invites;
        this.reloads = reloads;
        this.answers = answers;
        this.counters = counters;
        this.clock = clock;
    }

    static Authentication from(Config config, Answers answers, RequestCounters counters, Clock clock) throws ServletException {
        if (!config.get(AuthOptions.ENABLED)) {
            LOG.log(Level.WARNING, "authentication is off ({0}=false): this node accepts any REGISTER, from anyone, for any AOR",
                    AuthOptions.ENABLED.name());
            return new Authentication(null, false, null, answers, counters, clock, null, null, null);
        }
        String file = config.get(AuthOptions.USERS_FILE);
        String secret = config.get(NodeOptions.OVERLAY_SECRET);
        if (file.isEmpty() || secret.isEmpty()) {
            throw new ServletException(AuthOptions.ENABLED.name() + "=true needs " + AuthOptions.USERS_FILE.name()
                    + " and " + NodeOptions.OVERLAY_SECRET.name() + " (its nonces are signed with the secret)");
        }
        List<Algorithm> offered;
        try {
            offered = AuthOptions.algorithms(config.get(AuthOptions.ALGORITHMS));
        } catch (IllegalArgumentException e) {
            throw new ServletException(e.getMessage(), e);
        }
        var usersFile = new UsersFile(Path.of(file));
        usersFile.reload();
        ScheduledExecutorService reloads = Daemons.scheduler("p2psip-users-reload");
        long every = config.get(AuthOptions.USERS_RELOAD).toMillis();
        reloads.scheduleWithFixedDelay(usersFile::reload, every, every, TimeUnit.MILLISECONDS);
        var nonces = new Nonces(secret, config.get(AuthOptions.NONCE_LIFETIME));
        var users = new WarmupUsers(usersFile);
        return new Authentication(new Authenticator(users, nonces, offered), config.get(AuthOptions.INVITE), reloads,
                answers, counters, clock, users, nonces, offered.get(0));
    }

    /**
     * What the node's own warm-up REGISTERs carry, as a phone refreshing within its nonce's life
     * does (one round trip, credentials checked): null with authentication off. The nonce is
     * issued afresh every few seconds, so a long warm-up never meets a stale one.
     */
    Warmup.Credentials warmupCredentials(String realm) {
        if (authenticator == null) {
            return null;
        }
        return new Warmup.Credentials() {
            private String nonce;
            private long issued;

            @Override
            public String authorization(String user, String uri) {
                long now = clock.millis();
                if (nonce == null || now - issued > NONCE_REISSUE_MILLIS) {
                    nonce = nonces.issue(realm, now);
                    issued = now;
                }
                return users.authorization(user, realm, uri, nonce, preferred);
            }
        };
    }

    /** The node opens: the warm-up's users are nobody from now on. */
    void warmedUp() {
        if (users != null) {
            users.forget();
        }
    }

    /** How often the warm-up takes a new nonce: far within any nonce lifetime worth configuring. */
    private static final long NONCE_REISSUE_MILLIS = 5_000;

    /**
     * Whether a REGISTER may act for the user of {@code aor} (its realm the AOR's domain); when
     * not, it has been answered (401 with challenges, 403 for another user's credentials, 400 for
     * malformed ones).
     */
    boolean admits(SipServletRequest request, String aor) {
        return authenticator == null || admits(request, aor, false);
    }

    /** Whether INVITEs must carry their caller's credentials ({@code p2psip.auth.invite}, with Digest on). */
    boolean asksCallers() {
        return authenticator != null && invites;
    }

    /**
     * Whether an INVITE may be proxied: with {@code p2psip.auth.invite}, one from a user of a
     * served domain must carry that user's credentials (Proxy-Authorization; 407 otherwise). A
     * caller of another domain is not one of ours to challenge.
     */
    boolean admitsCall(SipServletRequest request, Domains domains) {
        if (authenticator == null || !invites || !"INVITE".equals(request.getMethod())) {
            return true;
        }
        String caller = Aors.of(request.getFrom().getURI(), domains);
        return caller == null || !domains.serves(Aors.domainOf(caller)) || admits(request, caller, true);
    }

    private boolean admits(SipServletRequest request, String aor, boolean proxy) {
        String domain = Aors.domainOf(aor);
        long now = clock.millis();
        var verdict = authenticator.check(request.getMethod(), headers(request, proxy ? "Proxy-Authorization" : "Authorization"),
                Aors.userOf(aor), domain, now);
        String what = request.getMethod().toLowerCase(Locale.ROOT);
        if (verdict instanceof Authenticator.Verdict.Accepted) {
            return true;
        }
        if (verdict instanceof Authenticator.Verdict.Challenge challenge) {
            counters.count(what + (challenge.stale() ? "-challenged-stale" : "-challenged"));
            answers.challenge(request, proxy, authenticator.challenges(domain, challenge.stale(), now));
        } else {
            var refused = (Authenticator.Verdict.Refused) verdict;
            counters.problem(what + "-refused-" + refused.status() + "-" + refused.reason(), request.getCallId());
            answers.status(request, refused.status(), refused.reason());
        }
        return false;
    }

    private static List<String> headers(SipServletRequest request, String name) {
        var values = new ArrayList<String>();
        request.getHeaders(name).forEachRemaining(values::add);
        return values;
    }

    @Override
    public void close() {
        if (reloads != null) {
            reloads.shutdownNow();
        }
    }
}
