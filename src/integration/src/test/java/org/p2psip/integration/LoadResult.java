package org.p2psip.integration;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * How a round of {@link RegisterLoad} ended.
 *
 * @param ok              users whose request ended 200
 * @param refused         503s with Retry-After, each followed by the user's next request
 * @param failed          users whose request ended otherwise, by "status reason" or "unanswered" (Timer F)
 * @param firstFailed     for each kind of failure, its lowest user and the node asked
 * @param contactsListed  how many 200s listed n Contacts, by n
 * @param late            final answers to requests already ended (a retransmission's answer, or one after Timer
 *                        F), by "status reason": a node answering a retransmission as a new request shows here
 * @param contacts        a query round's: each user's bindings as its 200 listed them (null: none)
 * @param took            from the first request to the last final answer, for the report
 */
record LoadResult(String name, int users, long ok, long refused, Map<String, Long> refusedFor, long retransmissions,
                  Map<String, Long> failed, Map<String, String> firstFailed, Map<Integer, Long> contactsListed,
                  Map<String, Long> late, List<List<String>> contacts, Duration took) {

    long failures() {
        return failed.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Requests answered finally (200s, refusals and failures), per second of the round. */
    double answersPerSecond() {
        return (ok + refused + failures()) / (took.toMillis() / 1000.0);
    }

    String summary() {
        String failures = failed.isEmpty() ? "none" : failed.entrySet().stream()
                .map(e -> e.getKey() + ": " + e.getValue() + " (first " + firstFailed.get(e.getKey()) + ")")
                .collect(Collectors.joining(", "));
        return String.format("%s: %,d users in %.1f s (%,.0f final answers/s); 200: %,d; 503 then asked again: %,d %s;"
                        + " retransmissions: %,d; late answers: %s; 200s by Contacts listed: %s; failed: %s",
                name, users, took.toMillis() / 1000.0, answersPerSecond(), ok, refused, refusedFor, retransmissions,
                late, contactsListed, failures);
    }
}
