package org.p2psip.proxy;

import java.util.List;

/**
 * What a forked request's branches' answers mean, RFC 3261 §16.7: a 2xx or a 6xx ends the search
 * (a 2xx goes upstream at once, a 6xx cancels the others); a group whose every branch has its
 * final answer, or rang for the branch time-out without one, has failed, and the next group
 * rings; with none left, the best final answer goes upstream. Which answer is best (step 6) and
 * the merging of challenges (step 7) are the container's proxy's, which forms the response it
 * sends upstream; what the caller is told in its place is this node's ({@link #upstream}).
 * Stateless and thread-safe.
 */
public final class Search {

    /** The status the caller gets for a flow that failed (430, RFC 5626 §5.3): it speaks of a hop the caller does not know. */
    private static final Answer FLOW_FAILED = new Answer(480, "Temporarily Unavailable");
    /** §16.7 step 6: a 503 from a branch says the callee's server is down, not this proxy; the caller gets 500. */
    private static final Answer SERVICE_UNAVAILABLE = new Answer(500, "Server Internal Error");

    private Search() {
    }

    /** One branch as the search sees it: its final status (0 while it has none) and whether it rang out. */
    public record Branch(int status, boolean timedOut) {

        boolean waiting() {
            return status < 200 && !timedOut;
        }
    }

    /** A status and reason phrase the proxy puts on a response it sends upstream. */
    public record Answer(int status, String reason) {
    }

    /**
     * Whether the group of {@code branches} failed: none still waits for its final answer, and
     * none ended the search with a 2xx or a 6xx. Then the next group rings.
     */
    public static boolean groupFailed(List<Branch> branches) {
        for (Branch branch : branches) {
            if (endsSearch(branch.status()) || branch.waiting()) {
                return false;
            }
        }
        return true;
    }

    /** Whether a final answer ends the search: a 2xx, or a 6xx (§16.7 steps 5 and 9). */
    public static boolean endsSearch(int status) {
        return status >= 200 && status < 300 || status >= 600;
    }

    /** Whether a group's best final answer lets the next group ring: anything but a 6xx (§16.7 step 5). */
    public static boolean ringsNext(int bestStatus) {
        return bestStatus < 600;
    }

    /**
     * What the caller is told in place of the best final answer, when §16.7 or this node's flows
     * change it: 430 becomes 480, 503 becomes 500; null when the answer goes up as it is.
     */
    public static Answer upstream(int bestStatus) {
        return switch (bestStatus) {
            case 430 -> FLOW_FAILED;
            case 503 -> SERVICE_UNAVAILABLE;
            default -> null;
        };
    }
}
