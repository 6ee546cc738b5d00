package org.p2psip.servlet;

import javax.servlet.sip.ProxyBranch;
import org.mobicents.javax.servlet.sip.ProxyBranchListener;
import org.mobicents.javax.servlet.sip.ResponseType;

/**
 * The container's word that a proxy branch rang for {@code p2psip.proxy.branch-timeout} without
 * a final answer, handed to the node's {@link Routing} (Restcomm's extension of JSR 289, declared
 * in WEB-INF/sip.xml; the container makes this object, so it finds the servlet's Routing in the
 * servlet context).
 *
 * <p>Why a listener: the container counts a timed-out branch as answered, but when that leaves a
 * class with no other answer it makes a 408 of its own, shows it to the servlet as a branch
 * response and sends it upstream whatever the servlet did (ProxyImpl.sendFinalResponse), so the
 * supervised proxy's best response never reaches {@code doErrorResponse} in time. This call comes
 * first, under the application session's lock, on the container's proxy timer thread: a lower
 * class started here keeps the proxy waiting, and the 408 is never made.
 */
public final class BranchTimeouts implements ProxyBranchListener {

    /** The servlet context attribute under which the servlet leaves its Routing. */
    static final String ROUTING = "org.p2psip.routing";

    @Override
    public void onProxyBranchResponseTimeout(ResponseType type, ProxyBranch branch) {
        if (type != ResponseType.FINAL) {
            return; // the time-out for a first provisional answer, which the node never sets
        }
        var request = branch.getProxy().getOriginalRequest();
        var routing = request == null ? null : (Routing) request.getSession().getServletContext().getAttribute(ROUTING);
        if (routing != null) {
            routing.timedOut(branch);
        }
    }
}
