package org.p2psip.servlet;

import java.util.ArrayList;
import java.util.List;
import javax.servlet.sip.Proxy;
import javax.servlet.sip.ProxyBranch;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import org.mobicents.servlet.sip.core.proxy.MobicentsProxyBranch;
import org.p2psip.proxy.Search;
import org.p2psip.proxy.Target;

/**
 * The search over an AOR's contacts (src/proxy's {@link Search}, RFC 3261 §16.6) as it rides on
 * the container's proxy: the groups still to try ride on the proxied request itself, so the
 * response that ends a group finds them on any container thread; a branch that rang for
 * p2psip.proxy.branch-timeout without a final answer has failed as a 4xx would (the container
 * timed it out: {@link BranchTimeouts}).
 */
final class Forking {

    /** A request attribute: the groups not tried yet, highest q first. */
    private static final String LATER = "org.p2psip.forking.later";

    private Forking() {
    }

    static void keepLater(SipServletRequest request, List<List<Target>> later) {
        if (!later.isEmpty()) {
            request.setAttribute(LATER, new ArrayList<>(later));
        }
    }

    /**
     * Whether the search over {@code proxy}'s branches is to go on to a lower group
     * ({@link Search#groupFailed}). What a timed-out branch's group asks, since the container
     * sends the best final answer upstream only when no branch waits (and shows it to the
     * servlet then).
     */
    static boolean groupFailed(Proxy proxy) {
        List<Search.Branch> branches = new ArrayList<>();
        for (ProxyBranch branch : proxy.getProxyBranches()) {
            SipServletResponse answer = branch.getResponse();
            branches.add(new Search.Branch(answer == null ? 0 : answer.getStatus(), timedOut(branch)));
        }
        return Search.groupFailed(branches);
    }

    private static boolean timedOut(ProxyBranch branch) {
        return branch instanceof MobicentsProxyBranch container && container.isTimedOut();
    }

    /** The next group to ring for this request, taken off its list; null when none is left. */
    @SuppressWarnings("unchecked")
    static List<Target> takeNext(SipServletRequest request) {
        var later = (List<List<Target>>) request.getAttribute(LATER);
        if (later == null || later.isEmpty()) {
            return null;
        }
        List<Target> next = later.remove(0);
        if (later.isEmpty()) {
            request.removeAttribute(LATER);
        }
        return next;
    }
}
