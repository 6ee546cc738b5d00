package org.p2psip.proxy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What a forked request's branches' answers mean, RFC 3261 §16.7: a 2xx or a 6xx ends the search
 * (a 2xx goes upstream at once, a 6xx cancels the others); a group whose every branch has its
 * final answer, or rang for the branch time-out without one, has failed, and the next group
 * rings; with none left, the best final answer goes upstream. Stateless and thread-safe.
 */
public final class Search {

    /** The status the caller gets for a flow that failed (430, RFC 5626 §5.3): it speaks of a hop the caller does not know. */
    private static final Answer FLOW_FAILED = new Answer(480, "Temporarily Unavailable");
    /** §16.7 step 6: a 503 from a branch says the callee's server is down, not this proxy; the caller gets 500. */
    private static final Answer SERVICE_UNAVAILABLE = new Answer(500, "Server Internal Error");

    /** 4xx answers the caller can act on, which §16.7 step 6 prefers among the 4xx. */
    private static final Set<Integer> ACTIONABLE = Set.of(401, 407, 415, 420, 484);

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
     * The best of the final answers received, §16.7 step 6: a 6xx if any; else the lowest class
     * (a 2xx before any 3xx, a 3xx before any 4xx, and so on; among 4xx a 401, 407, 415, 420 or 484
     * first), the first in {@code branches} within that; a
     * branch that rang out counts as 408. {@code challenges}: when the best is a 401 or 407, every
     * branch whose 401 or 407 challenges the caller, in order (§16.7 step 7: the proxy collects
     * their WWW-Authenticate and Proxy-Authenticate into the one it sends); otherwise empty.
     */
    public record Best(int branch, int status, List<Integer> challenges) {
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

    /** The best final answer among {@code branches} that have one; null when none has. */
    public static Best best(List<Branch> branches) {
        int bestIndex = -1;
        int bestStatus = 0;
        for (int i = 0; i < branches.size(); i++) {
            int status = finalStatus(branches.get(i));
            if (status != 0 && (bestIndex < 0 || better(status, bestStatus))) {
                bestIndex = i;
                bestStatus = status;
            }
        }
        if (bestIndex < 0) {
            return null;
        }
        List<Integer> challenges = new ArrayList<>();
        if (challenge(bestStatus)) {
            for (int i = 0; i < branches.size(); i++) {
                if (challenge(finalStatus(branches.get(i)))) {
                    challenges.add(i);
                }
            }
        }
        return new Best(bestIndex, bestStatus, challenges);
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

    private static int finalStatus(Branch branch) {
        return branch.status() >= 200 ? branch.status() : branch.timedOut() ? 408 : 0;
    }

    /** Whether {@code status} is a better final answer than {@code than}: a 6xx first, then the lower class. */
    private static boolean better(int status, int than) {
        boolean global = status >= 600;
        boolean thanGlobal = than >= 600;
        if (global != thanGlobal) {
            return global;
        }
        if (status / 100 != than / 100) {
            return status / 100 < than / 100;
        }
        // §16.7 step 6: among 4xx, one the caller can act on (credentials, a body, an extension,
        // more digits) before the others
        return status / 100 == 4 && ACTIONABLE.contains(status) && !ACTIONABLE.contains(than);
    }

    private static boolean challenge(int status) {
        return status == 401 || status == 407;
    }
}
