package org.p2psip.servlet;

import javax.servlet.sip.SipServletRequest;
import org.p2psip.registrar.Domains;
import org.p2psip.registrar.RegisterRequest;
import org.p2psip.registrar.Rejection;
import org.p2psip.registrar.RegistrarService;
import org.p2psip.registrar.Reply;

/**
 * REGISTER: parse, authenticate, check admission, run the registrar over the DHT, answer. The application
 * session is invalidated as soon as the final response is sent, because a REGISTER's session
 * otherwise stays alive until Timer J and caps the container's throughput (container.md).
 */
final class Registration {

    private final RegistrarService service;
    private final Admission admission;
    private final Answers answers;
    private final RequestCounters counters;
    private final ContainerThreads threads;
    private final Authentication authentication;
    private final Domains domains;

    Registration(RegistrarService service, Admission admission, Answers answers, RequestCounters counters,
                 ContainerThreads threads, Authentication authentication, Domains domains) {
        this.service = service;
        this.admission = admission;
        this.answers = answers;
        this.counters = counters;
        this.threads = threads;
        this.authentication = authentication;
        this.domains = domains;
    }

    void handle(SipServletRequest request) {
        RegisterRequest parsed;
        try {
            parsed = RegisterParser.parse(request, domains);
        } catch (BadRequest bad) {
            counters.problem("register-refused-" + bad.status() + "-" + bad.reason(), bad.reason() + " in " + request.getCallId());
            answers.status(request, bad.status(), bad.reason());
            answers.release(request);
            return;
        }
        if (!authentication.admits(request, parsed.aor())) {
            answers.release(request);
            return;
        }
        if (!admission.enter()) {
            counters.problem("register-overloaded", "more than the admitted requests in flight");
            answers.unavailable(request, "Overloaded");
            answers.release(request);
            return;
        }
        var work = service.register(parsed).toCompletableFuture().whenComplete((reply, failure) -> admission.leave());
        threads.whenDone(request, work, (reply, failure) -> {
            if (failure != null) {
                answers.dhtFailed(request, failure);
            } else {
                answer(request, reply, parsed.usesOutbound());
            }
            answers.release(request);
        });
    }

    private void answer(SipServletRequest request, Reply reply, boolean outbound) {
        if (reply instanceof Reply.Registered ok) {
            counters.count("register-200");
            answers.registered(request, ok.bindings(), ok.now(), ok.gruus(), outbound);
            return;
        }
        var refused = (Reply.Refused) reply;
        Rejection rejection = refused.rejection();
        counters.problem("register-refused-" + rejection.status() + "-" + rejection.reason(), request.getCallId());
        if (rejection == Rejection.INTERVAL_TOO_BRIEF) {
            answers.intervalTooBrief(request, rejection.reason(), refused.minExpires());
        } else if (rejection == Rejection.PATH_NOT_SUPPORTED) {
            answers.badExtension(request, rejection.reason(), "path");
        } else {
            answers.status(request, rejection.status(), rejection.reason());
        }
    }
}
