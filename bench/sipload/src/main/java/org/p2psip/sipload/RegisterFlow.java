package org.p2psip.sipload;

import java.util.Optional;
import org.p2psip.auth.Algorithm;

/**
 * The rules of one mode's registration, apart from sockets and timers: the first request of an
 * attempt and what each final response leads to. 2xx completes it; a 401 is answered once when
 * expected (mode first's challenge) and once more when stale=true on a nonce this phone used;
 * a 503 with Retry-After is sent again after it, up to --retry-503 times per attempt (RFC 3261
 * §21.5.4, as phones do); every other final response fails the attempt. The answer to a challenge is built apart
 * ({@link #challengeAnswer}), once the phone is ready to send again: over TCP per transaction, that
 * is on a new connection, whose address its Via shows.
 */
final class RegisterFlow {
    private static final int UNAUTHORIZED = 401;
    private static final int SERVICE_UNAVAILABLE = 503;
    private final Mode mode;
    private final Algorithm algorithm;
    private final Ids ids;
    private final String transport;
    private final boolean outbound;
    private final int expires;
    private final int retry503;

    /**
     * {@code transport}: "udp", "tcp" or "tls", in Via; {@code outbound}: register as an RFC 5626
     * client; {@code retry503}: how often an attempt comes back after a 503's Retry-After.
     */
    RegisterFlow(Mode mode, Algorithm algorithm, Ids ids, String transport, boolean outbound, int expires,
                 int retry503) {
        this.mode = mode;
        this.algorithm = algorithm;
        this.ids = ids;
        this.transport = transport;
        this.outbound = outbound;
        this.expires = expires;
        this.retry503 = retry503;
    }

    Mode mode() {
        return mode;
    }

    /** The attempt's first REGISTER; a refresh needs a phone that {@link Phone#canRefresh() can refresh}. */
    Outgoing first(Attempt attempt) {
        Phone phone = attempt.phone;
        switch (mode) {
            case PLAIN -> {
                phone.startDialog(ids);
                attempt.stage = Attempt.Stage.AWAITING_OK;
                return request(phone, null);
            }
            case FIRST -> {
                phone.startDialog(ids);
                attempt.stage = Attempt.Stage.AWAITING_CHALLENGE;
                return request(phone, null);
            }
            default -> {
                // RFC 3261 §10.2.4: a refresh keeps the Call-ID and raises the CSeq; RFC 7616
                // §3.4: the same nonce with the next nonce count.
                phone.cseq++;
                attempt.stage = Attempt.Stage.AWAITING_OK;
                return request(phone, answer(phone));
            }
        }
    }

    /** What a final response to the attempt's current request leads to. */
    Reaction onFinal(Attempt attempt, Response response) {
        Phone phone = attempt.phone;
        if (response.isSuccess()) {
            attempt.unchallenged = attempt.stage == Attempt.Stage.AWAITING_CHALLENGE;
            phone.registered = true;
            phone.outboundRequired = response.requireOutbound();
            phone.flowTimer = response.flowTimer();
            return Reaction.COMPLETED;
        }
        if (response.status() == SERVICE_UNAVAILABLE && response.retryAfter() >= 0 && attempt.retried503 < retry503) {
            attempt.retried503++;
            return new Reaction.Retry(response.retryAfter());
        }
        if (response.status() != UNAUTHORIZED || mode == Mode.PLAIN) {
            return new Reaction.Failed(response.status());
        }
        Optional<Challenge> challenge = Challenge.choose(response.wwwAuthenticate(), algorithm);
        boolean expected = attempt.stage == Attempt.Stage.AWAITING_CHALLENGE;
        boolean stale = !expected && !attempt.answeredStale && challenge.isPresent() && challenge.get().stale();
        if (challenge.isEmpty() || !(expected || stale)) {
            // A challenge without our algorithm, or credentials refused: the password or the user is wrong.
            return new Reaction.Failed(response.status());
        }
        attempt.answeredStale |= stale;
        attempt.stage = Attempt.Stage.AWAITING_OK;
        phone.adopt(challenge.get());
        return Reaction.ANSWER;
    }

    /** After {@link Reaction.Answer}: the REGISTER that answers the challenge just adopted, CSeq + 1. */
    Outgoing challengeAnswer(Attempt attempt) {
        Phone phone = attempt.phone;
        phone.cseq++;
        return request(phone, answer(phone));
    }

    /**
     * After {@link Reaction.Retry}: the refused REGISTER again in a new transaction, as RFC 3261
     * §10.2.4 has a registration go on: the same Call-ID, CSeq + 1. Past its challenge (or a
     * refresh) it carries the phone's credentials with the next nonce count; awaiting the challenge
     * (or plain) it carries none, as the refused one did.
     */
    Outgoing retry(Attempt attempt) {
        Phone phone = attempt.phone;
        phone.cseq++;
        boolean credentialed = mode != Mode.PLAIN && attempt.stage == Attempt.Stage.AWAITING_OK;
        return request(phone, credentialed ? answer(phone) : null);
    }

    private String answer(Phone phone) {
        phone.nonceCount++;
        return Authorization.value(phone.user.name(), phone.ha1(), phone.challenge, phone.nonceCount, ids.cnonce(),
                RegisterRequest.METHOD, RegisterRequest.requestUri(phone.user));
    }

    private Outgoing request(Phone phone, String authorization) {
        String branch = ids.branch();
        return new Outgoing(branch, RegisterRequest.build(phone, transport, outbound, branch, expires, authorization));
    }
}
