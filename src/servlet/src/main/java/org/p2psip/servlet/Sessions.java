package org.p2psip.servlet;

import javax.servlet.sip.SipServletRequest;

/**
 * Ends a request's application session once the node has sent its own final answer. The
 * container would otherwise keep session, transaction and messages until Timer J or the session
 * timeout, which is what caps its throughput (shared/design/container.md). Proxied requests keep
 * theirs: the dialog's later requests need it, and the container ends it when the dialog ends.
 */
final class Sessions {

    private Sessions() {
    }

    static void release(SipServletRequest request) {
        try {
            request.getApplicationSession().invalidate();
        } catch (IllegalStateException alreadyInvalid) {
            // invalidated already: nothing to free
        }
    }
}
