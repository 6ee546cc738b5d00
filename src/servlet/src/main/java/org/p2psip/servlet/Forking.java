package org.p2psip.servlet;

import java.util.ArrayList;
import java.util.List;
import javax.servlet.sip.Proxy;
import javax.servlet.sip.ProxyBranch;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.URI;
import org.mobicents.servlet.sip.core.proxy.MobicentsProxyBranch;

/**
 * The search over an AOR's contacts, RFC 3261 §16.6: contacts of one q value form a class and
 * ring at once; a class is tried only once every branch of the one before failed (the best final
 * response no 2xx and no 6xx). The classes still to try ride on the proxied request itself, so
 * the response that ends a class finds them on any container thread. A branch that rang for
 * p2psip.proxy.branch-timeout without a final answer has failed as a 4xx would (the container
 * timed it out: {@link BranchTimeouts}).
 */
final class Forking {

    /** A request attribute: the q classes not tried yet, highest first. */
    private static final String LATER = "org.p2psip.forking.later";

    /**
     * One contact to ring, with the Path its registration came with, its q (x1000, or
     * Binding.Q_UNSPECIFIED) and when its binding ends (milliseconds since the epoch), which a
     * redirect states as the contact's expires.
     */
    record Target(URI uri, List<String> path, int q, long expiresAt) {
    }

    private Forking() {
    }

    /** Targets already in order of preference (q descending), cut where q changes. */
    static List<List<Target>> byQ(List<Target> byPreference) {
        List<List<Target>> classes = new ArrayList<>();
        for (Target target : byPreference) {
            List<Target> last = classes.isEmpty() ? null : classes.get(classes.size() - 1);
            if (last == null || last.get(0).q() != target.q()) {
                last = new ArrayList<>();
                classes.add(last);
            }
            last.add(target);
        }
        return classes;
    }

    static void keepLater(SipServletRequest request, List<List<Target>> later) {
        if (!later.isEmpty()) {
            request.setAttribute(LATER, new ArrayList<>(later));
        }
    }

    /**
     * Whether the search over {@code proxy}'s branches is to go on to a lower class: no branch
     * still waits for its final answer (each has one, or timed out) and none ended the search
     * with a 2xx or a 6xx. What a timed-out branch's class asks, since the container sends the
     * best final answer upstream only when no branch waits (and shows it to the servlet then).
     */
    static boolean classFailed(Proxy proxy) {
        for (ProxyBranch branch : proxy.getProxyBranches()) {
            SipServletResponse answer = branch.getResponse();
            int status = answer == null ? 0 : answer.getStatus();
            if (status >= 200 && status < 300 || status >= 600) {
                return false;
            }
            if (status < 200 && !timedOut(branch)) {
                return false;
            }
        }
        return true;
    }

    private static boolean timedOut(ProxyBranch branch) {
        return branch instanceof MobicentsProxyBranch container && container.isTimedOut();
    }

    /** The next class to ring for this request, taken off its list; null when none is left. */
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
