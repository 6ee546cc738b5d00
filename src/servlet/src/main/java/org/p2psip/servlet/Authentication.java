package org.p2psip.servlet;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.servlet.ServletException;
import javax.servlet.sip.SipServletRequest;
import org.p2psip.auth.AuthOptions;
import org.p2psip.auth.Authenticator;
import org.p2psip.auth.Nonces;
import org.p2psip.auth.UsersFile;
import org.p2psip.config.Config;
import org.p2psip.config.NodeOptions;

/**
 * Digest authentication of REGISTERs on the servlet API: the {@link Authenticator}'s verdict
 * turned into 401, 403 or 400, and the users file read again on a timer of its own. Off by
 * {@code p2psip.auth.enabled}: then every REGISTER passes, and the node said so at start.
 */
final class Authentication implements AutoCloseable {

    private static final Logger LOG = System.getLogger(Authentication.class.getName());
    private final Authenticator authenticator;
    private final ScheduledExecutorService reloads;
    private final Answers answers;
    private final Counters counters;
    private final Clock clock;

    private Authentication(Authenticator authenticator, ScheduledExecutorService reloads, Answers answers,
                           Counters counters, Clock clock) {
        this.authenticator = authenticator;
        this.reloads = reloads;
        this.answers = answers;
        this.counters = counters;
        this.clock = clock;
    }

    static Authentication from(Config config, Answers answers, Counters counters, Clock clock) throws ServletException {
        if (!config.get(AuthOptions.ENABLED)) {
            LOG.log(Level.WARNING, "authentication is off ({0}=false): this node accepts any REGISTER, from anyone, for any AOR",
                    AuthOptions.ENABLED.name());
            return new Authentication(null, null, answers, counters, clock);
        }
        String file = config.get(AuthOptions.USERS_FILE);
        String secret = config.get(NodeOptions.OVERLAY_SECRET);
        if (file.isEmpty() || secret.isEmpty()) {
            throw new ServletException(AuthOptions.ENABLED.name() + "=true needs " + AuthOptions.USERS_FILE.name()
                    + " and " + NodeOptions.OVERLAY_SECRET.name() + " (its nonces are signed with the secret)");
        }
        try {
            AuthOptions.algorithms(config.get(AuthOptions.ALGORITHMS));
        } catch (IllegalArgumentException e) {
            throw new ServletException(e.getMessage(), e);
        }
        var users = new UsersFile(Path.of(file));
        users.reload();
        ScheduledExecutorService reloads = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "p2psip-users-reload");
            t.setDaemon(true);
            return t;
        });
        long every = config.get(AuthOptions.USERS_RELOAD).toMillis();
        reloads.scheduleWithFixedDelay(users::reload, every, every, TimeUnit.MILLISECONDS);
        var nonces = new Nonces(secret, config.get(AuthOptions.NONCE_LIFETIME));
        var offered = AuthOptions.algorithms(config.get(AuthOptions.ALGORITHMS));
        return new Authentication(new Authenticator(users, nonces, offered), reloads, answers, counters, clock);
    }

    /**
     * Whether {@code request} may act for the user of {@code aor} (its realm the AOR's domain);
     * when not, it has been answered (401 with challenges, 403 for another user's credentials,
     * 400 for malformed ones).
     */
    boolean admits(SipServletRequest request, String aor) {
        if (authenticator == null) {
            return true;
        }
        String user = Aors.userOf(aor);
        String domain = Aors.domainOf(aor);
        long now = clock.millis();
        var verdict = authenticator.check(request.getMethod(), headers(request), user, domain, now);
        if (verdict instanceof Authenticator.Verdict.Accepted) {
            return true;
        }
        if (verdict instanceof Authenticator.Verdict.Challenge challenge) {
            counters.count(challenge.stale() ? "register-challenged-stale" : "register-challenged");
            answers.challenge(request, authenticator.challenges(domain, challenge.stale(), now));
        } else {
            var refused = (Authenticator.Verdict.Refused) verdict;
            counters.problem("register-refused-" + refused.status() + "-" + refused.reason(), request.getCallId());
            answers.status(request, refused.status(), refused.reason());
        }
        return false;
    }

    private static List<String> headers(SipServletRequest request) {
        var values = new ArrayList<String>();
        request.getHeaders("Authorization").forEachRemaining(values::add);
        return values;
    }

    @Override
    public void close() {
        if (reloads != null) {
            reloads.shutdownNow();
        }
    }
}
