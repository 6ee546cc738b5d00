package org.p2psip.intake;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Where the intake finds a callee's contacts for an INVITE that asks for a redirect (RFC 3841
 * {@code Request-Disposition: redirect}, as a stateful front sends it): the application attaches
 * one to its {@link Intake}, and the intake answers such an INVITE itself from what it returns,
 * without the stack's transaction or the container's session. Implementations must not block:
 * the message thread calls {@link #find} and the answer is written on the thread that completes
 * the stage, which must complete within the application's deadline for its own lookups.
 */
public interface Directory {

    /**
     * A final answer to the INVITE: status, reason phrase and the values of its Contact headers
     * in order (none for anything but a 3xx). A 503 gets the intake's Retry-After.
     */
    record Answer(int status, String reason, List<String> contacts) {

        public Answer {
            contacts = List.copyOf(contacts);
        }
    }

    /**
     * The answer to an INVITE for {@code requestUri} (as the request line names it) from
     * {@code source}; null when the application must see the request itself (the container then
     * takes it as any other: a challenge to answer, a relay, a Request-URI it cannot read here).
     * A stage that fails is answered 503 with Retry-After.
     */
    CompletionStage<Answer> find(String requestUri, InetSocketAddress source);
}
